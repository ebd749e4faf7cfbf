#if Tool
import FICCore
import FastImageCache
import Foundation

/// fic's own small files beside a namespace's folder in the cache directory
/// (`NAMESPACE.formats.json`, `NAMESPACE.sources.json`): read and written like every file of the
/// cache, never through a symbolic link, private to the user, replaced atomically.
package enum CompanionFile {
    /// The suffixes of the companion files of a namespace, for removing them with it.
    package static let suffixes = [CacheDescription.fileSuffix, SourceMemo.fileSuffix]

    /// The bytes of `name` in `directory`, or nil when the directory or the file does not exist.
    ///
    /// - Throws: ``ImageCacheError`` when it cannot be read or is not a regular file (a link is
    ///   refused); ``CLIError`` when it is larger than `limit` bytes.
    package static func read(_ name: String, in directory: String, followLinks: Bool, limit: Int) throws -> [UInt8]? {
        let folder: Directory
        do {
            folder = try Directory.open(directory, create: false, followLinks: followLinks)
        } catch let error as ImageCacheError where error.errno == .noSuchFileOrDirectory {
            return nil
        }
        let path = folder.child(name)
        guard try folder.status(of: name) != nil else { return nil }
        let fd = try folder.openFile(name, writable: false)
        defer { fd.closeQuietly() }
        let size = Int(try fd.status(path: path).st_size)
        guard size <= limit else { throw CLIError("\(path) is \(size) bytes, more than such a file ever holds (\(limit))") }
        var bytes = [UInt8](repeating: 0, count: size)
        let read = try bytes.withUnsafeMutableBytes { try fd.readAll(into: $0, at: 0, path: path) }
        return Array(bytes[0..<read])
    }

    /// Writes `bytes` as `name` in `directory` (created if missing): a new, private file renamed
    /// over the old one, so that a reader sees the old file or the new one, never a mix.
    package static func write(_ bytes: [UInt8], as name: String, in directory: String, followLinks: Bool) throws {
        let folder = try Directory.open(directory, create: true, followLinks: followLinks)
        let file = try folder.makeTemporaryFile(for: name)
        try bytes.withUnsafeBytes { try file.descriptor.writeAll($0, at: 0, path: folder.child(name)) }
        try file.commit()
    }

    /// Removes the companion files of `namespace`: regular files only (a link or a folder of
    /// that name is left alone). Missing files are not an error.
    package static func removeAll(of namespace: String, in directory: String, followLinks: Bool) {
        guard let folder = try? Directory.open(directory, create: false, followLinks: followLinks) else { return }
        for suffix in suffixes {
            let name = namespace + suffix
            guard let st = try? folder.status(of: name), st.isRegularFile else { continue }
            try? folder.removeFile(name)
        }
        folder.synchronize()
    }
}
#endif
