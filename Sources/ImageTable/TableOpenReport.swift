/// What opening a table found, and what it had to do: a rebuild, lost entries, a stop without
/// `close()` to recover from. Tools show it; nothing here is silent.
public struct TableOpenReport: Sendable, Hashable, CustomStringConvertible {
    /// How a table that was not closed was left, and what that costs.
    public enum UncleanStop: Sendable, Hashable {
        /// Its process stopped without closing it (killed, or ended without `close()`), on this
        /// boot of this machine: every completed entry is served as it is, with no check; only
        /// the images being written when it stopped are dropped (``TableOpenReport/interruptedWrites``).
        case processStopped
        /// The system may have lost some of its writes: it restarted since (a crash or power loss
        /// keeps some pages and loses others), the table is a copy, it lives on a network or
        /// cluster file system, or the boot cannot be told. Every entry's pixels are checked
        /// before they are first served. `reason` says which.
        case pageCacheMayBeLost(reason: String)
    }

    /// Why the file was replaced by an empty table, when it was: a damaged file (``lostImages``
    /// says whether images were lost) or a changed format.
    public var rebuildReason: String?
    /// Whether the file was damaged (not merely written with another format) when it was rebuilt.
    public var wasDamaged: Bool
    /// Entries dropped because their records or pixels were damaged or cut off. When a damaged
    /// file was rebuilt, its entries are lost too but cannot be counted: see ``lostImages``.
    public var droppedEntries: Int
    /// How the table was left when it was not closed; nil after a clean close.
    public var uncleanStop: UncleanStop?
    /// Slots whose pixels were being written when the table's process stopped: dropped (they
    /// held no entry yet; an older image of the same entity, if any, is kept).
    public var interruptedWrites: Int
    /// Entries whose pixels are checked against their checksum the first time they are read
    /// (all of them when the page cache may have been lost; after an ordinary stop, only those
    /// left unchecked by an earlier one).
    public var entriesToCheck: Int
    /// Whether the table is open for reading only (asked for, or a read-only file system).
    public var isReadOnly: Bool

    /// A report of a clean open.
    public init(
        rebuildReason: String? = nil, wasDamaged: Bool = false, droppedEntries: Int = 0, uncleanStop: UncleanStop? = nil,
        interruptedWrites: Int = 0, entriesToCheck: Int = 0, isReadOnly: Bool = false
    ) {
        self.rebuildReason = rebuildReason
        self.wasDamaged = wasDamaged
        self.droppedEntries = droppedEntries
        self.uncleanStop = uncleanStop
        self.interruptedWrites = interruptedWrites
        self.entriesToCheck = entriesToCheck
        self.isReadOnly = isReadOnly
    }

    /// Whether the table was left open by a process that did not close it.
    public var recoveredFromCrash: Bool { uncleanStop != nil }

    /// Whether stored images were lost: a damaged file was rebuilt, or entries were dropped.
    /// (Interrupted writes are not: they had not been stored yet.)
    public var lostImages: Bool { wasDamaged || droppedEntries > 0 }

    /// One line for people; empty for a clean open and for an ordinary stop without `close()`
    /// that cost nothing.
    public var description: String {
        var parts: [String] = []
        if let rebuildReason {
            parts.append(
                wasDamaged
                    ? "the table was damaged and rebuilt empty (\(rebuildReason)); its images were lost"
                    : "the table was rebuilt empty (\(rebuildReason))")
        }
        if droppedEntries > 0 { parts.append("\(droppedEntries) damaged or cut-off \(Self.images(droppedEntries)) dropped") }
        if interruptedWrites > 0 {
            parts.append(
                "\(interruptedWrites) \(Self.images(interruptedWrites)) being written when its process stopped \(interruptedWrites == 1 ? "was" : "were") dropped"
            )
        }
        switch uncleanStop {
        case .pageCacheMayBeLost(let reason)?:
            parts.append(
                "the table was not closed cleanly, and \(reason): each of its \(entriesToCheck) \(Self.images(entriesToCheck)) is checked before it is first served"
            )
        case .processStopped?, nil:
            if entriesToCheck > 0 {
                parts.append(
                    "\(entriesToCheck) \(Self.images(entriesToCheck)) left unchecked by an earlier unclean stop \(entriesToCheck == 1 ? "is" : "are") checked before first use"
                )
            }
        }
        if isReadOnly { parts.append("read-only") }
        return parts.joined(separator: "; ")
    }

    private static func images(_ n: Int) -> String { n == 1 ? "image" : "images" }
}
