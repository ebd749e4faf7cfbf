/// Remembers the table keys of recently used identifiers, so that a frame's lookups do not
/// hash the same names again and again (a SHA-256 costs more than the rest of a lookup).
///
/// Names are compared in full and hashed with the process's own random seed, so the memo adds
/// no way to make two names share an entry. It holds at most ``capacity`` names and starts
/// over when full.
final class KeyMemo: Sendable {
    static let capacity = 4096
    private let keys = LockedBox<[String: TableKey]>([:])

    /// The keys of an entity's identifier and source version.
    func keys(_ entityID: String, _ sourceImageID: String) -> (entity: TableKey, source: TableKey) {
        if let found = keys.withLockedValue({ memo -> (TableKey, TableKey)? in
            guard let e = memo[entityID], let s = memo[sourceImageID] else { return nil }
            return (e, s)
        }) { return found }
        let made = (TableKey(entityID), TableKey(sourceImageID))
        keys.withLockedValue { memo in
            if memo.count + 2 > Self.capacity { memo.removeAll(keepingCapacity: true) }
            memo[entityID] = made.0
            memo[sourceImageID] = made.1
        }
        return made
    }

    /// The key of one identifier.
    func key(_ id: String) -> TableKey {
        if let found = keys.withLockedValue({ $0[id] }) { return found }
        let made = TableKey(id)
        keys.withLockedValue { memo in
            if memo.count + 1 > Self.capacity { memo.removeAll(keepingCapacity: true) }
            memo[id] = made
        }
        return made
    }
}
