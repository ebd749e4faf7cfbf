import CTileSupport
import Glibc
import SystemPackage

/// Level files are written with `O_DIRECT` where the file system allows it: whole tile rows go
/// from the (page-aligned) strip to the disk without passing through the page cache. On a
/// machine where fresh page-cache pages are expensive (virtual machines that hand freed memory
/// back to the host), buffered writes of a 1.8 GB pyramid cost seconds of system time; direct
/// writes cost almost none and overlap with decoding. Tiles are read back through the page cache
/// as usual (the kernel keeps both views coherent).
enum DirectWrites {
    /// Turns on `O_DIRECT` for `file` when possible; otherwise writes stay buffered.
    static func enable(on file: FileDescriptor) {
        let flags = fcntl(file.rawValue, F_GETFL)
        guard flags >= 0 else { return }
        _ = fcntl(file.rawValue, F_SETFL, flags | fic_tile_o_direct)
    }

    /// Turns `O_DIRECT` off again (for reading the finished pyramid).
    static func disable(on file: FileDescriptor) {
        let flags = fcntl(file.rawValue, F_GETFL)
        guard flags >= 0, flags & fic_tile_o_direct != 0 else { return }
        _ = fcntl(file.rawValue, F_SETFL, flags & ~fic_tile_o_direct)
    }
}
