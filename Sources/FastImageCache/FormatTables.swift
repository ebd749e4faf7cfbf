/// The configured formats' tables, found by name.
///
/// A scan of a few names, not a dictionary: the frame path finds its table on every lookup, and
/// comparing a short name with a handful of others costs less than hashing it (and touches one
/// array where a dictionary touches its storage and the hasher's code).
struct FormatTables: Sendable {
    private let names: [String]
    /// The tables, in the order the formats were configured.
    let values: [FormatTable]

    /// The tables of `list`, whose formats' names differ.
    init(_ list: [FormatTable]) {
        names = list.map(\.format.name)
        values = list
    }

    /// The table of the format named `name`, if configured.
    @inline(__always)
    subscript(name: String) -> FormatTable? {
        for (i, n) in names.enumerated() where n == name { return values[i] }
        return nil
    }
}
