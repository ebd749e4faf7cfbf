import FICCore

/// Remembers the table keys of recently used entities, so that a frame's lookups do not hash the
/// same names again and again (a SHA-256 costs more than the rest of a lookup).
///
/// Names are compared in full and hashed with the process's own random seed, so the memo adds
/// no way to make two names share an entry. It holds at most ``capacity`` entities and starts
/// over when full.
final class KeyMemo: Sendable {
    static let capacity = 4096

    private struct Keys {
        var sourceImageID: String
        var entity: TableKey
        var source: TableKey
    }

    private let memo = LockedBox<[String: Keys]>([:])

    /// The keys of an entity's identifier and source version: one probe when seen recently.
    func keys(_ entityID: String, _ sourceImageID: String) -> (entity: TableKey, source: TableKey) {
        let found = memo.withLockedValue { memo -> (TableKey, TableKey)? in
            guard let k = memo[entityID] else { return nil }
            return k.sourceImageID == sourceImageID ? (k.entity, k.source) : nil
        }
        if let found { return found }
        let made = Keys(sourceImageID: sourceImageID, entity: TableKey(entityID), source: TableKey(sourceImageID))
        memo.withLockedValue { memo in
            if memo.count >= Self.capacity { memo.removeAll(keepingCapacity: true) }
            memo[entityID] = made
        }
        return (made.entity, made.source)
    }

    /// The key of an entity's identifier.
    func key(_ entityID: String) -> TableKey {
        memo.withLockedValue { $0[entityID]?.entity } ?? TableKey(entityID)
    }
}
