/// What opening a table found, and what it had to do: a rebuild, lost entries, a crash to
/// recover from. Tools show it; nothing here is silent.
public struct TableOpenReport: Sendable, Hashable, CustomStringConvertible {
    /// Why the file was replaced by an empty table, when it was: a damaged file (``lostImages``
    /// says whether images were lost) or a changed format.
    public var rebuildReason: String?
    /// Whether the file was damaged (not merely written with another format) when it was rebuilt.
    public var wasDamaged: Bool
    /// Entries dropped because their records or pixels were damaged or cut off. When a damaged
    /// file was rebuilt, its entries are lost too but cannot be counted: see ``lostImages``.
    public var droppedEntries: Int
    /// Whether the table was left open by a process that did not close it (a crash or a kill):
    /// every entry's pixels are then checked before they are first served.
    public var recoveredFromCrash: Bool
    /// Whether the table is open for reading only (asked for, or a read-only file system).
    public var isReadOnly: Bool

    /// A report of a clean open.
    public init(rebuildReason: String? = nil, wasDamaged: Bool = false, droppedEntries: Int = 0, recoveredFromCrash: Bool = false, isReadOnly: Bool = false) {
        self.rebuildReason = rebuildReason
        self.wasDamaged = wasDamaged
        self.droppedEntries = droppedEntries
        self.recoveredFromCrash = recoveredFromCrash
        self.isReadOnly = isReadOnly
    }

    /// Whether stored images were lost: a damaged file was rebuilt, or entries were dropped.
    public var lostImages: Bool { wasDamaged || droppedEntries > 0 }

    /// One line for people, empty for a clean open.
    public var description: String {
        var parts: [String] = []
        if let rebuildReason {
            parts.append(wasDamaged ? "damaged and rebuilt empty (\(rebuildReason)); its images were lost" : "rebuilt empty (\(rebuildReason))")
        }
        if droppedEntries > 0 { parts.append("\(droppedEntries) damaged or cut-off entr\(droppedEntries == 1 ? "y" : "ies") dropped") }
        if recoveredFromCrash { parts.append("not closed cleanly last time: each image is checked before it is first served") }
        if isReadOnly { parts.append("read-only") }
        return parts.joined(separator: "; ")
    }
}
