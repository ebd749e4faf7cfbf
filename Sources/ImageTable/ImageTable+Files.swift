import SystemPackage

extension ImageTable {
    /// Whether the regular file `name` in `directory` is provably a table file: it starts with a
    /// valid table header (of any layout version). Links and other kinds of file are not.
    package static func isTableFile(_ name: String, in directory: Directory) -> Bool {
        guard let st = try? directory.status(of: name), st.isRegularFile,
            let fd = try? directory.openFile(name, writable: false)
        else { return false }
        defer { fd.closeQuietly() }
        var page = [UInt8](repeating: 0, count: TableHeader.readLength)
        let read = (try? page.withUnsafeMutableBytes { try fd.readAll(into: $0, at: 0, path: nil) }) ?? 0
        return read == page.count && page.withUnsafeBytes { TableHeader.isTableHeader($0) }
    }

    /// Removes the table file `name` from `directory` if it is provably a table file and nobody
    /// has it open. Returns whether it was removed.
    package static func removeTableFile(_ name: String, in directory: Directory) -> Bool {
        guard isTableFile(name, in: directory), let fd = try? directory.openFile(name, writable: false) else { return false }
        defer { fd.closeQuietly() }
        guard (try? fd.lock(.exclusive, wait: false, path: nil)) == true else { return false }
        // Still the same file under that name, now that it is locked?
        guard let locked = try? fd.status(path: nil), let named = try? directory.status(of: name), named.isSameFile(as: locked) else {
            return false
        }
        guard (try? directory.removeFile(name)) != nil else { return false }
        SharedStateFile.remove(ofTable: name, in: directory)
        return true
    }
}
