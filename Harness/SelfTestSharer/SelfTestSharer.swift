#if Tool
import ArgumentParser
import FICCore
import FICHarness
import Foundation
import Glibc
import ImageTable
import SystemPackage

/// The processes the shared-table handshake tests run side by side and kill: writers that reuse
/// slots, readers that hold slots and check their pixels, and a holder that keeps one slot. They
/// share a side file (cells and holder table, as ``SharedStateLayout`` lays them out) and a file
/// of 4 KiB "pixels" per slot, whose bytes are a known function of the slot and its version. A
/// program of the test harness that no product ships.
@main
struct SelfTestSharer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fic-selftest-sharer",
        abstract: "Writes, reads or holds slots of a shared state (used by the handshake tests).")

    enum Role: String, ExpressibleByArgument {
        case writer, reader, holder
    }

    @Option(help: "The shared state file (made by the test).") var shared: String
    @Option(help: "The pixel file: 4 KiB per slot (made by the test).") var pixels: String
    @Option(help: "Slots of the table.") var slots: Int
    @Option(help: "Slots per chunk.") var slotsPerChunk: Int
    @Option(help: "What this process does.") var role: Role
    @Option(help: "Operations before it exits.") var operations: Int = 100_000
    @Option(help: "Seed of its choice of slots.") var seed: UInt64 = 1
    @Option(help: "A writer: after this many claims, kill itself with SIGKILL half way through drawing the next.") var dieAfterClaims: Int?

    static let pixelBytes = 4096

    /// The pattern seed of `slot` at `version`: what its pixels must be while its word says so.
    static func patternSeed(slot: Int, version: UInt64) -> UInt64 {
        UInt64(slot) << 40 ^ version ^ 0x5EED_5EED
    }

    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func run() throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: slotsPerChunk, maximumCount: slots)
        let fd = try FileDescriptor.open(atPath: shared, .readWrite, options: [.closeOnExec])
        let sharedLength = Int(try fd.status(path: shared).st_size)
        let state = try MappedRegion(descriptor: fd, offset: 0, length: sharedLength, writable: true, path: shared)
        let pixelFile = try FileDescriptor.open(atPath: pixels, .readWrite, options: [.closeOnExec])
        let images = try MappedRegion(descriptor: pixelFile, offset: 0, length: slots * Self.pixelBytes, writable: true, path: pixels)
        let cells = SlotCells(base: state.base, layout: layout)
        let me = try HolderTable.register(fd, entries: state.base + layout.holderTableOffset, path: shared)
        // The index may have been a dead holder's: its bits and in-flight slots are not this one's.
        guard try SharedWriterLock.acquire(fd, timeout: .seconds(60), path: shared) else {
            throw ValidationError("the writer lock stayed taken")
        }
        cells.takeOver(holder: me, slots: slots) { _ in }
        try SharedWriterLock.release(fd, path: shared)
        let expected = UnsafeMutableRawPointer.allocate(byteCount: Self.pixelBytes, alignment: 64)
        defer { expected.deallocate() }
        var rng = SplitMix64(seed: seed)
        say("registered holder=\(me)")

        /// Whether `slot`'s pixels are the pattern of `version`.
        func intact(_ slot: Int, _ version: UInt64) -> Bool {
            TestPattern.fill(expected, count: Self.pixelBytes, seed: Self.patternSeed(slot: slot, version: version))
            return memcmp(expected, images.base + slot * Self.pixelBytes, Self.pixelBytes) == 0
        }

        switch role {
        case .writer:
            var stores = 0, refused = 0, claims = 0
            for _ in 0..<operations {
                let slot = Int(rng.next() % UInt64(slots))
                guard try SharedWriterLock.acquire(fd, timeout: .seconds(60), path: shared) else {
                    throw ValidationError("the writer lock stayed taken")
                }
                let claimed = cells.claim(slot, owner: me) {
                    (try? HolderTable.isAlive($0, through: fd, ownIndex: me, path: shared)) ?? true
                }
                try SharedWriterLock.release(fd, path: shared)
                guard let claimed else {
                    refused += 1
                    continue
                }
                claims += 1
                let version = SlotCells.version(after: claimed.version)
                let dies = claims == dieAfterClaims
                TestPattern.fill(
                    images.base + slot * Self.pixelBytes, count: dies ? Self.pixelBytes / 2 : Self.pixelBytes,
                    seed: Self.patternSeed(slot: slot, version: version))
                if dies {
                    say("dying slot=\(slot)")
                    kill(getpid(), SIGKILL)
                }
                guard try SharedWriterLock.acquire(fd, timeout: .seconds(60), path: shared) else {
                    throw ValidationError("the writer lock stayed taken")
                }
                cells.publish(slot, .committed(version: version))
                try SharedWriterLock.release(fd, path: shared)
                stores += 1
                if stores % 1000 == 0 { say("stores \(stores)") }
            }
            say("done stores=\(stores) refused=\(refused)")
        case .reader:
            var reads = 0, torn = 0, backoffs = 0
            for i in 0..<operations {
                let slot = Int(rng.next() % UInt64(slots))
                let word = cells.word(slot)
                guard word.state == .committed else { continue }
                guard cells.hold(slot, holder: me, expecting: word) else {
                    backoffs += 1
                    continue
                }
                // Held: checked now, and for some reads again and again while writers run.
                for _ in 0..<(i % 64 == 0 ? 20 : 1) where !intact(slot, word.version) {
                    torn += 1
                    say("TORN slot=\(slot) version=\(word.version)")
                }
                cells.release(slot, holder: me)
                reads += 1
                if reads % 1000 == 0 { say("reads \(reads) torn \(torn)") }
            }
            say("done reads=\(reads) torn=\(torn) backoffs=\(backoffs)")
        case .holder:
            while true {
                let slot = Int(rng.next() % UInt64(slots))
                let word = cells.word(slot)
                guard word.state == .committed, cells.hold(slot, holder: me, expecting: word) else { continue }
                guard intact(slot, word.version) else { throw ValidationError("slot \(slot) was torn when held") }
                say("holding slot=\(slot) version=\(word.version)")
                while true { pause() }
            }
        }
        withExtendedLifetime((state, images)) {}
    }
}
#endif
