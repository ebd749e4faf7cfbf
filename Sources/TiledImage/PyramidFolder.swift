import FICCore
import Glibc
import SystemPackage

/// The files of a pyramid kept in a folder: `level-N.tiles` for each level and ``PyramidMetadata``.
enum PyramidFolder {
    /// The file name of level `index`.
    static func levelFileName(_ index: Int) -> String { "level-\(index).tiles" }

    /// Whether `name` is one of the files a pyramid folder may hold (levels, metadata, their
    /// hidden temporary names).
    static func isPyramidFile(_ name: String) -> Bool {
        if name == PyramidMetadata.fileName { return true }
        if name.hasPrefix("level-") && name.hasSuffix(".tiles") { return true }
        return name.hasPrefix(".") && name.contains(".tmp-")
    }

    /// Writes the metadata under a hidden name, then renames it into place: readers see the old
    /// file or the new one, never a part. `flush` also writes it (and the folder) to the disk.
    static func writeMetadata(_ metadata: PyramidMetadata, in directory: Directory, flush: Bool) throws {
        var generator = SystemRandomNumberGenerator()
        let hidden = ".\(PyramidMetadata.fileName).tmp-\(String(generator.next() as UInt64, radix: 16))"
        let fd = try directory.openFile(hidden, writable: true, create: true, exclusive: true)
        do throws {
            let bytes = metadata.encoded()
            try typed { try bytes.withUnsafeBytes { raw in try fd.writeAll(raw, at: 0, path: directory.child(hidden)) } }
            if flush { try fd.synchronize(path: directory.child(hidden)) }
            fd.closeQuietly()
            try directory.rename(hidden, to: PyramidMetadata.fileName)
            if flush { directory.synchronize() }
        } catch {
            fd.closeQuietly()
            try? directory.removeFile(hidden)
            throw error
        }
    }

    /// Reads and checks the metadata; nil when there is none (an empty or unfinished folder).
    static func readMetadata(in directory: Directory) throws -> PyramidMetadata? {
        let path = directory.child(PyramidMetadata.fileName)
        guard try directory.status(of: PyramidMetadata.fileName) != nil else { return nil }
        let fd = try directory.openFile(PyramidMetadata.fileName, writable: false)
        defer { fd.closeQuietly() }
        var bytes = [UInt8](repeating: 0, count: PyramidMetadata.maximumLength + 1)
        let count = try typed { try bytes.withUnsafeMutableBytes { raw in try fd.readAll(into: raw, at: 0, path: path) } }
        return try PyramidMetadata.decode(Array(bytes[0..<count]), path: path)
    }

    /// Removes every pyramid file from the folder, the metadata first (so that the folder never
    /// looks complete while levels are missing). Other files are left alone.
    static func removeContents(of directory: Directory) throws {
        try directory.removeFile(PyramidMetadata.fileName)
        for name in try directory.names() where isPyramidFile(name) {
            try directory.removeFile(name)
        }
    }

    /// Bytes of disk the folder's pyramid files use.
    static func diskBytes(of directory: Directory) throws -> Int {
        var total = 0
        for name in try directory.names() where isPyramidFile(name) {
            if let st = try directory.status(of: name), st.isRegularFile { total += Int(st.st_blocks) * 512 }
        }
        return total
    }

    /// Removes the empty folder `name` inside `parent`. A folder that is gone already, or that
    /// holds a file again (another process started a pyramid there since it was emptied), is
    /// left as it is.
    static func removeFolder(_ name: String, in parent: Directory) throws {
        _ = try parent.removeEmptyFolder(name)
    }
}
