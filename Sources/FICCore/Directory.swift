import CFICCore
import Glibc
import SystemPackage

/// An open directory. Files in it are opened, created, renamed and removed relative to it
/// (`openat` and friends), and never through a symbolic link: a link planted where the package
/// expects its own file or folder is refused with ``ImageCacheError/Code/unsafePath``.
///
/// Everything the package creates is private to the user: folders 0700 and files 0600, lowered
/// further by a stricter umask.
package final class Directory: Sendable {
    /// The open directory.
    package let descriptor: FileDescriptor
    /// Its path, for messages.
    package let path: String

    private init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        // Closing alone may not release a lock on the folder: a child process forked by another
        // thread at this moment holds a copy of the descriptor, and with it the lock, until it
        // execs. The next opener must find the folder free the moment this object is gone.
        descriptor.unlock()
        descriptor.closeQuietly()
    }

    /// Opens the directory at `path`, creating it and any missing parents (0700) when `create`.
    ///
    /// Parents are followed as the system resolves them (the user named them). The last
    /// component is not followed when it is a symbolic link, unless `followLinks`: a cache folder
    /// that is a link to somewhere else is refused with `.unsafePath`.
    package static func open(_ path: String, create: Bool, followLinks: Bool = false) throws -> Directory {
        guard !path.isEmpty else { throw ImageCacheError(.invalidArgument, "the directory path is empty") }
        var components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let absolute = path.hasPrefix("/")
        var current = try openRaw(absolute ? "/" : ".", relativeTo: AT_FDCWD, followLink: true, path: absolute ? "/" : ".")
        if components.isEmpty { return Directory(descriptor: current, path: path) }
        let last = components.removeLast()
        var walked = absolute ? "" : "."
        do throws {
            for component in components {
                walked += "/" + component
                let next = try step(into: component, of: current, create: create, followLink: true, path: walked)
                current.closeQuietly()
                current = next
            }
            let final = try step(into: last, of: current, create: create, followLink: followLinks, path: path)
            current.closeQuietly()
            return Directory(descriptor: final, path: path)
        } catch {
            current.closeQuietly()
            throw error
        }
    }

    /// Opens (creating when `create`, 0700) the folder `name` inside this one, never through a link.
    package func subdirectory(_ name: String, create: Bool) throws -> Directory {
        try Self.checkName(name)
        let fd = try Self.step(into: name, of: descriptor, create: create, followLink: false, path: child(name))
        return Directory(descriptor: fd, path: child(name))
    }

    /// The folder and the last component of the file path `path`: `("/a", "b")` for `/a/b`,
    /// `("/", "b")` for `/b`, `(".", "b")` for `b`.
    package static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        return (slash == path.startIndex ? "/" : String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// The path of `name` in this folder, for messages.
    package func child(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    /// Opens the regular file `name`, never through a link. `create` makes it (`permissions`, 0600
    /// unless given, lowered by the umask) when it is missing; `exclusive` fails with `EEXIST`
    /// when it exists. Anything but a regular file is refused with `.unsafePath`.
    package func openFile(
        _ name: String, writable: Bool, create: Bool = false, exclusive: Bool = false, permissions: mode_t = 0o600
    ) throws -> FileDescriptor {
        try Self.checkName(name)
        var flags = (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
        if create { flags |= O_CREAT }
        if exclusive { flags |= O_EXCL }
        let raw = try retryingSystemCall("open", path: child(name)) { openat(descriptor.rawValue, name, flags, permissions) }
        let fd = FileDescriptor(rawValue: raw)
        do throws {
            let st = try fd.status(path: child(name))
            guard st.isRegularFile else {
                throw ImageCacheError(.unsafePath, "refused: not a regular file", path: child(name))
            }
            // O_NONBLOCK only kept a FIFO from blocking the open; regular files ignore it, but clear it anyway.
            fd.clearNonBlocking()
            return fd
        } catch {
            fd.closeQuietly()
            throw error
        }
    }

    /// The status of `name` without following a link; nil when it does not exist.
    package func status(of name: String) throws -> Glibc.stat? {
        try Self.checkName(name)
        var st = Glibc.stat()
        if fstatat(descriptor.rawValue, name, &st, AT_SYMLINK_NOFOLLOW) == 0 { return st }
        let e = lastErrno()
        if e == .noSuchFileOrDirectory { return nil }
        throw ImageCacheError.system("stat", path: child(name), errno: e)
    }

    /// The names in the folder, without `.` and `..`.
    package func names() throws -> [String] {
        let dup = try descriptor.duplicate(path: path)
        guard let stream = fdopendir(dup.rawValue) else {
            let e = lastErrno()
            dup.closeQuietly()
            throw ImageCacheError.system("opendir", path: path, errno: e)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var result: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { result.append(name) }
        }
        return result
    }

    /// Removes the file `name` (not a folder). Missing is not an error.
    package func removeFile(_ name: String) throws {
        try Self.checkName(name)
        if unlinkat(descriptor.rawValue, name, 0) == 0 { return }
        let e = lastErrno()
        if e == .noSuchFileOrDirectory { return }
        throw ImageCacheError.system("unlink", path: child(name), errno: e)
    }

    /// Renames `from` to `to` within this folder, replacing `to` atomically.
    package func rename(_ from: String, to: String) throws {
        try Self.checkName(from)
        try Self.checkName(to)
        _ = try retryingSystemCall("rename", path: child(to)) { renameat(descriptor.rawValue, from, descriptor.rawValue, to) }
    }

    /// Writes the folder's entries to the disk (after a create, rename or unlink).
    package func synchronize() {
        _ = fsync(descriptor.rawValue)
    }

    /// Whether the folder's file system is mounted read-only (`faccessat` fails with `EROFS`):
    /// then nothing in it may be written, whatever the permissions say.
    package var isOnReadOnlyFileSystem: Bool {
        faccessat(descriptor.rawValue, ".", W_OK, 0) != 0 && lastErrno() == .readOnlyFileSystem
    }

    /// Gives the open `file` the name `name` in this folder (`linkat`), which must not exist yet.
    /// The file's own descriptor is linked where the process may (`AT_EMPTY_PATH` needs
    /// `CAP_DAC_READ_SEARCH`); otherwise its `/proc/self/fd` name is, which works for an unnamed
    /// (`O_TMPFILE`) file too.
    package func link(_ file: FileDescriptor, as name: String) throws {
        try Self.checkName(name)
        if linkat(file.rawValue, "", descriptor.rawValue, name, Self.atEmptyPath) == 0 { return }
        _ = try retryingSystemCall("link", path: child(name)) {
            linkat(AT_FDCWD, "/proc/self/fd/\(file.rawValue)", descriptor.rawValue, name, AT_SYMLINK_FOLLOW)
        }
    }

    /// `AT_EMPTY_PATH` of Linux's `fcntl.h`, which Swift's Glibc module does not export.
    private static let atEmptyPath: Int32 = 0x1000

    /// Takes a `flock` lock on the folder itself; see ``FileDescriptor/lock(_:wait:path:)``.
    package func lock(_ kind: FileDescriptor.LockKind, wait: Bool) throws -> Bool {
        try descriptor.lock(kind, wait: wait, path: path)
    }

    /// Releases the lock ``lock(_:wait:)`` took, while the folder stays open.
    package func unlock() {
        descriptor.unlock()
    }

    /// A new, empty file (`permissions`, 0600 unless given, lowered by the umask) that has no name
    /// until ``TemporaryFile/commit()``: nothing is left behind if the process dies first. Where
    /// the file system cannot make unnamed files, it gets an unpredictable hidden name instead,
    /// created exclusively.
    package func makeTemporaryFile(for name: String, permissions: mode_t = 0o600) throws -> TemporaryFile {
        try Self.checkName(name)
        let unnamed = openat(descriptor.rawValue, ".", fic_o_tmpfile | O_RDWR | O_CLOEXEC, permissions)
        if unnamed >= 0 {
            return TemporaryFile(directory: self, descriptor: FileDescriptor(rawValue: unnamed), name: nil, finalName: name)
        }
        let hidden = Self.temporaryName(for: name)
        let fd = try openFile(hidden, writable: true, create: true, exclusive: true, permissions: permissions)
        return TemporaryFile(directory: self, descriptor: fd, name: hidden, finalName: name)
    }

    /// A hidden, unpredictable name beside `name`.
    static func temporaryName(for name: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = String(generator.next() as UInt64, radix: 16)
        return ".\(name).tmp-\(suffix)"
    }

    static func checkName(_ name: String) throws {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.utf8.contains(0) else {
            throw ImageCacheError(.invalidArgument, "'\(name)' is not a plain file name")
        }
    }

    private static func openRaw(_ name: String, relativeTo dir: Int32, followLink: Bool, path: String) throws -> FileDescriptor {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followLink ? 0 : O_NOFOLLOW)
        let raw = openat(dir, name, flags)
        if raw >= 0 { return FileDescriptor(rawValue: raw) }
        let e = lastErrno()
        if e == .tooManySymbolicLinkLevels || (e == .notDirectory && !followLink && isLink(name, in: dir)) {
            throw ImageCacheError(
                .unsafePath, "refused: the folder is a symbolic link; give its target instead (or allow links explicitly)", path: path,
                errno: .tooManySymbolicLinkLevels)
        }
        if e == .notDirectory { throw ImageCacheError(.unsafePath, "refused: not a folder", path: path, errno: e) }
        throw ImageCacheError.system("open", path: path, errno: e)
    }

    private static func isLink(_ name: String, in dir: Int32) -> Bool {
        var st = Glibc.stat()
        return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.isSymbolicLink
    }

    private static func step(into name: String, of dir: FileDescriptor, create: Bool, followLink: Bool, path: String) throws
        -> FileDescriptor
    {
        do {
            return try openRaw(name, relativeTo: dir.rawValue, followLink: followLink, path: path)
        } catch let error as ImageCacheError where error.errno == .noSuchFileOrDirectory && create {
            if mkdirat(dir.rawValue, name, 0o700) != 0 {
                let e = lastErrno()
                if e != .fileExists { throw ImageCacheError.system("mkdir", path: path, errno: e) }
            }
            _ = fsync(dir.rawValue)
            return try openRaw(name, relativeTo: dir.rawValue, followLink: followLink, path: path)
        }
    }
}

/// A file being written before it gets its name, so that no reader ever sees it half-written.
/// The descriptor is closed with this object unless the caller takes it with ``takeDescriptor()``.
package final class TemporaryFile: Sendable {
    /// The folder it will be named in.
    package let directory: Directory
    /// The open file.
    package let descriptor: FileDescriptor
    /// The name it gets on commit.
    package let finalName: String

    private struct Ownership {
        /// Its hidden name, when it has one that must be removed if it is never committed.
        var hiddenName: String?
        var ownsDescriptor = true
    }

    /// Under a lock, so that the file can go to the I/O threads with the writer that owns it.
    private let ownership: LockedBox<Ownership>

    init(directory: Directory, descriptor: FileDescriptor, name: String?, finalName: String) {
        self.directory = directory
        self.descriptor = descriptor
        self.finalName = finalName
        ownership = LockedBox(Ownership(hiddenName: name))
    }

    deinit {
        let left = ownership.withLockedValue { $0 }
        if let hiddenName = left.hiddenName { try? directory.removeFile(hiddenName) }
        if left.ownsDescriptor { descriptor.closeQuietly() }
    }

    /// The path it will have, for messages.
    package var path: String { directory.child(finalName) }

    /// Flushes the file, names it ``finalName`` (replacing any file of that name atomically) and
    /// flushes the folder.
    package func commit() throws {
        try descriptor.synchronize(path: path)
        var name = ownership.withLockedValue { $0.hiddenName }
        if name == nil {
            let hidden = Directory.temporaryName(for: finalName)
            try directory.link(descriptor, as: hidden)
            ownership.withLockedValue { $0.hiddenName = hidden }
            name = hidden
        }
        try directory.rename(name!, to: finalName)
        ownership.withLockedValue { $0.hiddenName = nil }
        directory.synchronize()
    }

    /// Hands the open descriptor to the caller, who closes it.
    package func takeDescriptor() -> FileDescriptor {
        ownership.withLockedValue { $0.ownsDescriptor = false }
        return descriptor
    }
}
