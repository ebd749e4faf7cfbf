import CFICCore
import Glibc
import SystemPackage

/// The kind of file system a file lives on, as far as the package's durability rules care.
package struct FileSystemKind: Hashable, Sendable {
    /// The file system's magic number (`statfs.f_type`).
    package let magic: UInt64

    /// The kind of the file system with this magic number.
    package init(magic: UInt64) {
        self.magic = magic
    }

    /// Magic numbers of file systems whose files other machines may write, or whose local page
    /// cache is not the truth about the file: network file systems (NFS, SMB/CIFS, 9P, Ceph,
    /// AFS, Coda, Lustre, OrangeFS, GPFS), cluster file systems on shared disks (OCFS2, GFS2),
    /// and FUSE (a user-space server that may keep its own state).
    static let sharedOrRemote: Set<UInt64> = [
        0x6969,  // NFS
        0x517B,  // SMB
        0xFF53_4D42,  // CIFS
        0xFE53_4D42,  // SMB2
        0x0102_1997,  // 9P
        0x00C3_6400,  // Ceph
        0x5346_414F,  // AFS
        0x6B41_4653,  // kAFS
        0x7375_7245,  // Coda
        0x564C,  // NCP
        0x0BD0_0BD0,  // Lustre
        0x1366_1366,  // OrangeFS
        0x4750_4653,  // GPFS
        0x7461_636F,  // OCFS2
        0x0116_1970,  // GFS2
        0x6573_5546  // FUSE
    ]

    /// Whether a process's writes to a file here are, until the system itself stops, exactly
    /// what the next opener on this machine reads: true for local file systems.
    package var pageCacheIsTheTruth: Bool { !Self.sharedOrRemote.contains(magic) }
}

extension FileDescriptor {
    /// The kind of file system the open file lives on.
    package func fileSystemKind(path: String?) throws -> FileSystemKind {
        var magic: UInt64 = 0
        _ = try retryingSystemCall("fstatfs", path: path) { fic_fstatfs_type(rawValue, &magic) }
        return FileSystemKind(magic: magic)
    }
}
