import FICCore
import Glibc

/// The boot and the file a table was last opened for writing under, recorded in its header.
///
/// A table left open (its writer stopped without `close()`) can be trusted as it is only when
/// it is reopened on the same boot, as the same file, on a local file system: then every write
/// of the stopped process is in the page cache, in the order it was made, and the write
/// protocol (an in-flight record before the pixels, the checksum last after them) tells each
/// completed entry from the one being written. Anything else — another boot (a crash or power
/// loss may have kept some pages and lost others), a copy of the file, a network or cluster file
/// system, a boot the system does not name — and every entry is checked before it is served.
struct WriterSession: Equatable {
    /// The boot; nil when unknown.
    var boot: BootIdentifier?
    /// The file's device and inode numbers.
    var device: UInt64
    var inode: UInt64

    /// Bytes of the encoded session.
    static let encodedLength = 32

    /// The running boot and the open file `st`.
    static func current(file st: Glibc.stat) -> WriterSession {
        WriterSession(boot: BootIdentifier.current, device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    init(boot: BootIdentifier?, device: UInt64, inode: UInt64) {
        self.boot = boot
        self.device = device
        self.inode = inode
    }

    /// Reads a session from ``encodedLength`` bytes (any bytes are safe: zeros read as an unknown boot).
    init(decoding b: UnsafeRawBufferPointer) {
        boot = BootIdentifier(bytes: b[0..<16])
        device = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        inode = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    /// Writes the session into ``encodedLength`` bytes.
    func encode(into b: UnsafeMutableRawBufferPointer) {
        for i in 0..<16 { b[i] = boot?.bytes[i] ?? 0 }
        b.storeBytes(of: device.littleEndian, toByteOffset: 16, as: UInt64.self)
        b.storeBytes(of: inode.littleEndian, toByteOffset: 24, as: UInt64.self)
    }

    /// Why a table left open under `self` cannot be trusted as it is when reopened under `now`
    /// on a file system of `kind`, or nil when it can (its writer only stopped).
    func distrust(reopenedUnder now: WriterSession, on kind: FileSystemKind) -> String? {
        guard kind.pageCacheIsTheTruth else { return "it lives on a network or cluster file system" }
        guard let boot, let current = now.boot else { return "the system's boot cannot be told" }
        guard boot == current else { return "the system has restarted since it was written" }
        guard device == now.device, inode == now.inode else { return "it is a copy of a table written elsewhere" }
        return nil
    }
}
