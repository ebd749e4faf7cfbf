import FICCore
import SystemPackage

/// The lock that lets one process at a time open or close a table for writing (readers take it
/// shared): an open-file-description lock on ``TableFile/gateByte`` of the table file, which the
/// kernel releases if its holder dies. It is held through a duplicate of the table's descriptor
/// that only the gate closes, so that it is let go of exactly once, whatever happens meanwhile
/// to the original (closed by a failed open, its number reused).
final class TableOpenGate {
    private var descriptor: FileDescriptor?
    private let path: String

    /// Takes the gate of the table file open as `file`, `kind` (exclusive to write, shared to
    /// read), trying for up to `timeout`.
    ///
    /// - Throws: `.inUse` when another opener or closer held it all that time; `.io`.
    init(_ file: FileDescriptor, kind: FileDescriptor.LockKind, timeout: Duration, path: String) throws {
        self.path = path
        let own = try file.duplicate(path: path)
        do {
            guard try SharedWriterLock.acquire(own, byte: TableFile.gateByte, kind: kind, timeout: timeout, path: path) else {
                throw ImageCacheError(
                    .inUse, "another process has been opening or closing the table for over \(timeout); try again later", path: path)
            }
        } catch {
            own.closeQuietly()
            throw error
        }
        descriptor = own
    }

    deinit { release() }

    /// Lets go of the gate (once).
    func release() {
        guard let own = descriptor else { return }
        descriptor = nil
        try? SharedWriterLock.release(own, byte: TableFile.gateByte, path: path)
        own.closeQuietly()
    }
}
