import FICCore
import SystemPackage

/// The processes that have a table open together, as LMDB's reader table lists its readers: one
/// 64-byte entry per holder in the table's shared state, and per entry a lock byte of the shared
/// state file that its holder keeps write-locked (an open-file-description lock) for as long as
/// it is registered. The kernel releases that lock when the holder's descriptor closes or its
/// process dies — killed, crashed, however — so "is holder h alive?" is one question to the
/// kernel, immune to reused process ids, process namespaces and garbage in the entry: bytes in
/// the file may make a dead holder's entry look filled in, never a live holder look dead.
///
/// Entry layout (little-endian):
/// ```
/// 0   state        UInt32   1: registered; anything else: free
/// 4   pid          UInt32   the holder's process id          (for people and `fic inspect`)
/// 8   start time   UInt64   its start, in clock ticks after boot (so a reused id is told apart)
/// 16  nonce        UInt64   chosen at registration
/// 24…55            reserved, zero
/// 56  checksum     UInt64   XXH64 of bytes 0..<56, seeded with the entry's index
/// ```
/// An entry is claimed by taking its lock byte first: whoever gets the lock owns the entry,
/// whatever it holds, because the holder that wrote it has let go of the lock (or never took it).
package struct HolderTable {
    /// How many holders a table may have at once (LMDB's default reader table is 126).
    package static let capacity = 128
    /// Bytes of one entry.
    package static let entryLength = 64
    /// Bytes of the whole table.
    package static let length = capacity * entryLength
    /// The lock byte of holder 0; holder h's is `lockBase + h`. Far beyond any file's end, so
    /// the locks need no bytes of the file.
    package static let lockBase: Int64 = (1 << 60) + 64
    static let registered: UInt32 = 1

    /// What an entry says of its holder.
    package struct Entry: Equatable, Sendable {
        /// The holder's index.
        package let index: Int
        /// The process, when the entry's bytes are intact and filled in.
        package let process: ProcessIdentity?
        /// Whether the holder's lock byte is held: it is alive (or it is this description's own).
        package let isAlive: Bool
    }

    /// Registers this open file description of the shared state as a holder of the table whose
    /// holder table starts at `entries` (``length`` writable bytes of the shared mapping): takes
    /// the first free lock byte, then writes the entry. Returns the holder's index.
    ///
    /// - Throws: ``ImageCacheError/Code/inUse`` when ``capacity`` holders are alive.
    package static func register(
        _ descriptor: FileDescriptor, entries: UnsafeMutableRawPointer, path: String?,
        process: ProcessIdentity? = ProcessIdentity.current, nonce: UInt64 = .random(in: 1...UInt64.max)
    ) throws -> Int {
        for index in 0..<capacity
        where try descriptor.lockRange(.exclusive, start: lockBase + Int64(index), length: 1, wait: false, path: path) {
            write(index, process: process, nonce: nonce, into: entries)
            return index
        }
        throw ImageCacheError(.inUse, "\(capacity) processes have the table open, the most it allows; close some of them", path: path)
    }

    /// Ends holder `index`'s registration through `descriptor` (the one it registered with):
    /// clears its entry, then lets go of its lock byte.
    package static func unregister(_ index: Int, _ descriptor: FileDescriptor, entries: UnsafeMutableRawPointer, path: String?) throws {
        precondition(index >= 0 && index < capacity)
        (entries + index * entryLength).initializeMemory(as: UInt8.self, repeating: 0, count: entryLength)
        try descriptor.unlockRange(start: lockBase + Int64(index), length: 1, path: path)
    }

    /// Whether holder `index` is alive, asked of the kernel through `descriptor` (any open file
    /// description of the shared state; its own registration counts as alive).
    package static func isAlive(_ index: Int, through descriptor: FileDescriptor, ownIndex: Int?, path: String?) throws -> Bool {
        guard index >= 0 && index < capacity else { return false }
        if index == ownIndex { return true }
        return try descriptor.isRangeLockedByOthers(.exclusive, start: lockBase + Int64(index), length: 1, path: path)
    }

    /// Every entry that is registered or whose holder is alive, as `fic inspect` shows them.
    package static func entries(_ entries: UnsafeRawPointer, through descriptor: FileDescriptor, ownIndex: Int?, path: String?) throws
        -> [Entry]
    {
        var result: [Entry] = []
        for index in 0..<capacity {
            let process = read(index, from: entries)
            let alive = try isAlive(index, through: descriptor, ownIndex: ownIndex, path: path)
            if process != nil || alive { result.append(Entry(index: index, process: process, isAlive: alive)) }
        }
        return result
    }

    /// Writes entry `index`, its checksum last.
    static func write(_ index: Int, process: ProcessIdentity?, nonce: UInt64, into entries: UnsafeMutableRawPointer) {
        let entry = entries + index * entryLength
        entry.initializeMemory(as: UInt8.self, repeating: 0, count: entryLength)
        entry.storeBytes(of: registered.littleEndian, toByteOffset: 0, as: UInt32.self)
        entry.storeBytes(of: UInt32(truncatingIfNeeded: process?.pid ?? 0).littleEndian, toByteOffset: 4, as: UInt32.self)
        entry.storeBytes(of: (process?.startTime ?? 0).littleEndian, toByteOffset: 8, as: UInt64.self)
        entry.storeBytes(of: nonce.littleEndian, toByteOffset: 16, as: UInt64.self)
        entry.storeRelease(XXH64.hash(UnsafeRawPointer(entry), count: 56, seed: UInt64(index)), toByteOffset: 56)
    }

    /// The process entry `index` names, or nil when it is free or its bytes do not check out.
    static func read(_ index: Int, from entries: UnsafeRawPointer) -> ProcessIdentity? {
        let entry = entries + index * entryLength
        let checksum = entry.loadAcquire(fromByteOffset: 56)
        guard UInt32(littleEndian: entry.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) == registered,
            XXH64.hash(entry, count: 56, seed: UInt64(index)) == checksum
        else { return nil }
        let pid = Int32(bitPattern: UInt32(littleEndian: entry.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        return ProcessIdentity(pid: pid, startTime: UInt64(littleEndian: entry.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }
}
