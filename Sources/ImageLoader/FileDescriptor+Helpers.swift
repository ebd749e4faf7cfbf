import FICCore
import Glibc
import SystemPackage

extension FileDescriptor {
    /// Releases a `flock` lock taken with ``FileDescriptor/lock(_:wait:path:)``.
    func unlock() {
        while flock(rawValue, LOCK_UN) != 0 && errno == EINTR {}
    }

    /// Reads up to `count` bytes at `offset` (fewer only at the end of the file).
    func readBytes(count: Int, at offset: Int, path: String?) throws(ImageCacheError) -> [UInt8] {
        var failure: ImageCacheError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ImageCacheError) {
                initialized = try readAll(into: UnsafeMutableRawBufferPointer(buffer), at: offset, path: path)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes all of `bytes` at `offset`.
    func writeBytes(_ bytes: [UInt8], at offset: Int, path: String?) throws(ImageCacheError) {
        var failure: ImageCacheError?
        bytes.withUnsafeBytes { b in
            do throws(ImageCacheError) {
                try writeAll(b, at: offset, path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
