#if Loader
import FICCore
import Foundation
import Glibc
import SystemPackage

/// The record the processes sharing an originals cache keep together: one line per entry stored
/// (`S name bytes`), read (`R name`) or deleted (`D name`), each ending in a checksum of the line,
/// appended while holding an exclusive `flock` on the cache folder.
///
/// Each process replays the lines others appended since it last looked (usually none or a few),
/// so its recency list (`RecencyList`) — sizes and recency of every entry — matches the folder's, and every
/// access costs O(1): a few system calls and one short line. When the lines outnumber twice the
/// entries, the journal is rewritten (entries oldest first) and renamed into place; the others
/// notice the new file and replay it whole. A journal that is missing, damaged or absurdly large is
/// rebuilt from the folder itself. Lines that do not parse or whose checksum fails (a torn last
/// line after a crash, tampering) are ignored.
struct Journal {
    static let fileName = "journal"
    static let firstLine = "FICORIGINALS 1"
    /// A journal larger than this is not read but rebuilt.
    static let maximumBytes = 256 << 20

    /// A change to the cache.
    enum Record {
        case stored(String, Int)
        case read(String)
        case deleted(String)

        var line: String {
            let body: String
            switch self {
            case .stored(let name, let bytes): body = "S \(name) \(bytes)"
            case .read(let name): body = "R \(name)"
            case .deleted(let name): body = "D \(name)"
            }
            return body + " " + Journal.checksum(body) + "\n"
        }
    }

    let directory: Directory
    private var descriptor: FileDescriptor?
    private var identity: Glibc.stat?
    private var consumed = 0
    private var lines = 0
    /// Every entry with its size, least recently used first.
    private(set) var index = RecencyList<String>()

    init(directory: Directory) {
        self.directory = directory
    }

    /// Closes the journal.
    mutating func close() {
        descriptor?.closeQuietly()
        descriptor = nil
    }

    // MARK: Reading

    /// Brings ``index`` up to date with the journal on disk. Call holding the folder's lock.
    mutating func synchronize() throws {
        let onDisk = try directory.status(of: Self.fileName)
        if let onDisk, let identity, let _ = descriptor, onDisk.isSameFile(as: identity) {
            try readTail()
            return
        }
        close()
        guard let onDisk, onDisk.isRegularFile, Int(onDisk.st_size) <= Self.maximumBytes else {
            try rebuild()
            return
        }
        let fd = try directory.openFile(Self.fileName, writable: true)
        descriptor = fd
        identity = try fd.status(path: directory.child(Self.fileName))
        consumed = 0
        lines = 0
        index.removeAll()
        guard try readFirstLine() else {
            try rebuild()
            return
        }
        try readTail()
    }

    private mutating func readFirstLine() throws -> Bool {
        guard let fd = descriptor else { return false }
        let expected = Array((Self.firstLine + "\n").utf8)
        let buffer = try fd.readBytes(count: expected.count, at: 0, path: directory.child(Self.fileName))
        guard buffer == expected else { return false }
        consumed = buffer.count
        return true
    }

    /// Applies the complete lines after ``consumed``. A last line without its newline is what a
    /// crash left: it is ended with a newline, so that it is ignored as damaged.
    private mutating func readTail() throws {
        guard let fd = descriptor else { return }
        let path = directory.child(Self.fileName)
        let size = Int(try fd.status(path: path).st_size)
        guard size <= Self.maximumBytes else {
            try rebuild()
            return
        }
        guard size > consumed else { return }
        // A line longer than any valid one is kept only in part: it is ignored anyway.
        var pending: [UInt8] = []
        var pendingLength = 0
        var offset = consumed
        while offset < size {
            let chunk = try fd.readBytes(count: min(1 << 16, size - offset), at: offset, path: path)
            let n = chunk.count
            if n == 0 { break }
            offset += n
            var start = 0
            for i in 0..<n where chunk[i] == 0x0A {
                if pending.count < 256 { pending += chunk[start..<min(i, start + 256)] }
                pendingLength += i - start
                apply(pending)
                consumed += pendingLength + 1
                pending.removeAll(keepingCapacity: true)
                pendingLength = 0
                start = i + 1
            }
            if pending.count < 256 { pending += chunk[start..<min(n, start + 256)] }
            pendingLength += n - start
        }
        if pendingLength > 0 {
            try write([0x0A], at: consumed + pendingLength)
            consumed += pendingLength + 1
        }
    }

    /// Applies one line; anything malformed is ignored.
    private mutating func apply(_ line: [UInt8]) {
        lines += 1
        guard line.count <= 128, let text = String(validating: line, as: UTF8.self) else { return }
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 3, let check = fields.last, Self.checksum(fields.dropLast().joined(separator: " ")) == check else { return }
        let name = String(fields[1])
        guard Self.isEntryName(name) else { return }
        switch (fields[0], fields.count) {
        case ("S", 4):
            guard let bytes = Int(fields[2]), bytes > 0, bytes <= 1 << 50 else { return }
            index.store(name, cost: bytes)
        case ("R", 3):
            index.touch(name)
        case ("D", 3):
            index.remove(name)
        default:
            return
        }
    }

    // MARK: Writing

    /// Appends `records` and applies them to ``index``. Call holding the folder's lock, after
    /// ``synchronize()``.
    mutating func append(_ records: [Record]) throws {
        guard !records.isEmpty else { return }
        if descriptor == nil { try synchronize() }
        let bytes = Array(records.map(\.line).joined().utf8)
        try write(bytes, at: consumed)
        consumed += bytes.count
        for r in records {
            lines += 1
            switch r {
            case .stored(let name, let size): index.store(name, cost: size)
            case .read(let name): index.touch(name)
            case .deleted(let name): index.remove(name)
            }
        }
        if lines > 2 * index.count + 1024 { try compact() }
    }

    private func write(_ bytes: [UInt8], at offset: Int) throws {
        guard let fd = descriptor else { return }
        try fd.writeBytes(bytes, at: offset, path: directory.child(Self.fileName))
    }

    /// Rewrites the journal with one line per entry, oldest first, and renames it into place.
    mutating func compact() throws {
        var text = Self.firstLine + "\n"
        let entries = index.entries
        for (name, bytes) in entries { text += Record.stored(name, bytes).line }
        let temporary = try directory.makeTemporaryFile(for: Self.fileName)
        let bytes = Array(text.utf8)
        try temporary.descriptor.writeBytes(bytes, at: 0, path: temporary.path)
        try temporary.commit()
        close()
        let fd = try directory.openFile(Self.fileName, writable: true)
        descriptor = fd
        identity = try fd.status(path: directory.child(Self.fileName))
        consumed = bytes.count
        lines = entries.count
    }

    /// Rebuilds the journal from the folder: every entry file, oldest modification first.
    /// Hidden temporary files older than an hour (left by a crash where the file system could
    /// not make unnamed files) are removed.
    mutating func rebuild() throws {
        close()
        index.removeAll()
        var found: [(name: String, bytes: Int, modified: Int)] = []
        for name in try directory.names() {
            guard let st = try? directory.status(of: name) else { continue }
            if Self.isEntryName(name), st.isRegularFile, st.st_size > 0 {
                found.append((name, Int(st.st_size), st.st_mtim.tv_sec))
            } else if name.hasPrefix("."), name.contains(".tmp-"), st.isRegularFile, time(nil) - st.st_mtim.tv_sec > 3600 {
                try? directory.removeFile(name)
            }
        }
        for f in found.sorted(by: { $0.modified < $1.modified }) { index.store(f.name, cost: f.bytes) }
        try compact()
    }

    // MARK: Names and checksums

    /// Whether `name` is an entry's file name: 64 lowercase hexadecimal digits.
    static func isEntryName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// FNV-1a of `text`, 8 hexadecimal digits: catches torn and mangled lines.
    static func checksum(_ text: String) -> String {
        var h: UInt32 = 0x811C_9DC5
        for b in text.utf8 {
            h ^= UInt32(b)
            h = h &* 0x0100_0193
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
#endif
