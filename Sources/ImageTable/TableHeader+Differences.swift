/// What differs between two definitions of a table's format, in words, for the error a process
/// gets when it joins a table that others use with another definition: the geometry, then each
/// `key=value` field of the identity (as the cache writes a format's identity) that differs.
extension TableHeader {
    /// Each difference between the format this header defines (`here`: the opener's) and
    /// `found` (the table's), as "what: found in the table, here"; empty when they agree.
    func differences(fromTable found: TableHeader) -> [String] {
        var result: [String] = []
        func compare(_ what: String, _ table: String, _ here: String) {
            if table != here { result.append("\(what): \(table) in the table, \(here) here") }
        }
        compare("pixel size", "\(found.pixelWidth)×\(found.pixelHeight)", "\(pixelWidth)×\(pixelHeight)")
        compare("bytes per pixel", "\(found.bytesPerPixel)", "\(bytesPerPixel)")
        compare("bytes per row", "\(found.bytesPerRow)", "\(bytesPerRow)")
        compare("maximum count", "\(found.maximumCount)", "\(maximumCount)")
        compare("page size", "\(found.pageSize)", "\(pageSize)")
        let table = Self.fields(found.identity), mine = Self.fields(identity)
        for key in Set(table.keys).union(mine.keys).sorted() where table[key] != mine[key] {
            compare(key, table[key] ?? "(none)", mine[key] ?? "(none)")
        }
        // Whatever else differs (slot and chunk lengths follow from the above).
        if result.isEmpty && found != self { result.append("the table's layout differs from this format's") }
        return result
    }

    /// The identity's `;`-separated fields: `key=value` by key, anything else by its place
    /// ("identity field 1", …).
    private static func fields(_ identity: String) -> [String: String] {
        var fields: [String: String] = [:]
        for (i, part) in identity.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            if let equals = part.firstIndex(of: "=") {
                fields[String(part[..<equals])] = String(part[part.index(after: equals)...])
            } else {
                fields["identity field \(i + 1)"] = String(part)
            }
        }
        return fields
    }
}
