import SystemPackage

/// Writes whole files through FICCore's descriptor calls, reporting failures as
/// ``ImageCacheError/Code/io`` errors that say which step failed and carry the path and `errno`.
enum FileWriter {
    /// Creates or truncates the file at `path` (0644, as other tools' output files) and writes
    /// `bytes` to it.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = try step("create", path: path) {
            try FileDescriptor.open(atPath: path, .writeOnly, options: [.create, .truncate], permissions: FilePermissions(rawValue: 0o644))
        }
        do {
            try step("write", path: path) { try bytes.withUnsafeBytes { try descriptor.writeAll($0, path: path) } }
        } catch {
            descriptor.closeQuietly()
            throw error
        }
        try step("close", path: path) { try descriptor.close(path: path) }
    }

    /// Runs one step; its error (FICCore's, for the system call) is told in this writer's words,
    /// keeping the `errno`.
    private static func step<T>(_ name: String, path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ImageCacheError {
            let reason = error.errno.map { ": \(ImageCacheError.reason($0))" } ?? ""
            throw ImageCacheError(.io, "Could not \(name) the file\(reason).", path: path, errno: error.errno)
        }
    }
}
