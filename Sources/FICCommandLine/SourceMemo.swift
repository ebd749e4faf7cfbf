#if Tool
import FICCore
import FastImageCache
import Foundation

/// What fic remembers of a namespace's photo files between runs, in `CACHE/NAMESPACE.sources.json`:
/// for each file (by its path relative to the photo folder) its identity as `stat` saw it and the
/// SHA-256 of its bytes — its source version, which names its images in the cache.
///
/// A file whose identity still matches its row keeps its version without being read, which is
/// what lets the gallery find every stored photo before its first frame. Any change (size, times,
/// inode, device) means the file is read and hashed again. As git does with its index, a row is
/// not kept for a file whose times were within ``racyNanoseconds`` of the moment it was hashed: a
/// file written again within the same tick of a coarse clock could keep its times, so such a file
/// is hashed again next time. The memo is a hint, never trusted blindly: a file that is too large,
/// unreadable, of another version or with any malformed row counts as no memo at all.
package struct SourceMemo: Sendable, Equatable {
    /// A file's identity as `stat` reports it (links followed, as the photo folder's files are).
    package struct Identity: Codable, Hashable, Sendable {
        var size: Int64
        var mtimeNs: Int64
        var ctimeNs: Int64
        var inode: UInt64
        var device: UInt64

        /// The identity of the file at `path`, or nil when it cannot be seen.
        package init?(path: String) {
            guard let st = try? fileStatus(atPath: path) else { return nil }
            self.init(st)
        }

        init(_ st: stat) {
            size = Int64(st.st_size)
            mtimeNs = st.modificationNanoseconds
            ctimeNs = st.statusChangeNanoseconds
            inode = UInt64(st.st_ino)
            device = UInt64(st.st_dev)
        }

        enum CodingKeys: String, CodingKey {
            case size, inode, device
            case mtimeNs = "mtime_ns"
            case ctimeNs = "ctime_ns"
        }
    }

    /// One remembered file.
    package struct Row: Codable, Hashable, Sendable {
        var identity: Identity
        /// The SHA-256 of its bytes, 64 lowercase hex digits (``FileEntity/contentHash(_:)``).
        var sha256: String
    }

    /// A file read and hashed, with the row to remember for it (nil when it changed while it was
    /// read or its times are too recent to trust).
    package struct Hashed {
        package let bytes: ImageBytes
        package let hash: String
        package let row: Row?
    }

    /// The end of the memo's file name.
    package static let fileSuffix = ".sources.json"
    /// The largest memo read (a row takes about 200 bytes: some 150,000 photos).
    package static let maximumFileBytes = 32 << 20
    /// How close to the moment of hashing a file's times make its row untrustworthy.
    package static let racyNanoseconds: Int64 = 2_000_000_000

    /// The remembered files, by path relative to the photo folder.
    private(set) var rows: [String: Row]

    /// An empty memo.
    package init() { rows = [:] }

    /// A memo of `rows`.
    package init(rows: [String: Row]) { self.rows = rows }

    /// The file name of the memo of `namespace`.
    package static func fileName(namespace: String) -> String { namespace + fileSuffix }

    /// The version of the file at `relativePath` if its identity is still `identity`, else nil.
    package func hash(of relativePath: String, identity: Identity) -> String? {
        guard let row = rows[relativePath], row.identity == identity else { return nil }
        return row.sha256
    }

    /// The row of `relativePath`, if any.
    package func row(of relativePath: String) -> Row? { rows[relativePath] }

    /// Remembers `row` for `relativePath`, or forgets the file when `row` is nil.
    package mutating func set(_ row: Row?, for relativePath: String) { rows[relativePath] = row }

    /// The row to keep for a file of `identity` whose bytes hashed to `hash` at `now` (ns since
    /// 1970), or nil when its modification or status-change time is within
    /// ``racyNanoseconds`` of `now` (or later).
    package static func row(identity: Identity, hash: String, hashedAt now: Int64) -> Row? {
        let newest = max(identity.mtimeNs, identity.ctimeNs)
        guard newest < now - racyNanoseconds else { return nil }
        return Row(identity: identity, sha256: hash)
    }

    /// Reads the file at `path` and hashes its bytes; the row is kept only when the file's
    /// identity was the same before and after the read and is not too recent.
    package static func readAndHash(_ path: String) throws -> Hashed {
        let before = Identity(path: path)
        let now = Self.now
        let bytes = try ImageBytes(contentsOf: path)
        let hash = FileEntity.contentHash(bytes)
        let after = Identity(path: path)
        let row = before.flatMap { before in
            before == after && Int64(bytes.count) == before.size ? Self.row(identity: before, hash: hash, hashedAt: now) : nil
        }
        return Hashed(bytes: bytes, hash: hash, row: row)
    }

    /// The real-time clock, ns since 1970 (the clock file times are in).
    package static var now: Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }

    // MARK: The file

    /// The memo's file as stored.
    private struct Stored: Codable {
        var version: Int
        var sources: [String: Row]
    }

    /// The memo of `namespace` in `directory`; an empty one when there is none or it is in any
    /// way doubtful (too large, unreadable, a link, another version, a malformed row).
    package static func load(directory: String, namespace: String, followLinks: Bool) -> SourceMemo {
        guard
            let bytes = try? CompanionFile.read(
                fileName(namespace: namespace), in: directory, followLinks: followLinks, limit: maximumFileBytes),
            let stored = try? JSONDecoder().decode(Stored.self, from: Data(bytes)),
            stored.version == 1, stored.sources.allSatisfy(isValid)
        else { return SourceMemo() }
        return SourceMemo(rows: stored.sources)
    }

    /// Writes the memo atomically (private, never through a link). A memo that would be larger
    /// than ``maximumFileBytes`` is not written: the old one stays, and rows it lacks are hashed.
    package func save(directory: String, namespace: String, followLinks: Bool) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = [UInt8](try encoder.encode(Stored(version: 1, sources: rows)))
        guard bytes.count <= Self.maximumFileBytes else { return }
        try CompanionFile.write(bytes, as: Self.fileName(namespace: namespace), in: directory, followLinks: followLinks)
    }

    /// Whether a row read from the file is well formed.
    private static func isValid(_ entry: (key: String, value: Row)) -> Bool {
        let path = entry.key, row = entry.value
        return !path.isEmpty && path.utf8.count <= 4096 && !path.utf8.contains(0)
            && row.identity.size >= 0
            && row.sha256.utf8.count == 64 && row.sha256.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
#endif
