#if Loader
import FICCore
import Glibc
import SystemPackage

extension FileDescriptor {
    /// Reads up to `count` bytes at `offset` (fewer only at the end of the file).
    func readBytes(count: Int, at offset: Int, path: String?) throws -> [UInt8] {
        var failure: (any Error)?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do {
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
    func writeBytes(_ bytes: [UInt8], at offset: Int, path: String?) throws {
        var failure: (any Error)?
        bytes.withUnsafeBytes { b in
            do {
                try writeAll(b, at: offset, path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
#endif
