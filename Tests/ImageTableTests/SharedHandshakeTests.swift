import FICCore
import FICHarness
import FICTestSupport
import Foundation
import Glibc
@testable import ImageTable
import SystemPackage
import Testing

/// The handshake between readers that hold slots and writers that reuse them, across processes
/// (``SlotCells``): two writers and readers of `fic-selftest-sharer` on 32 slots, readers checking
/// every held slot's pixels (a known function of the slot and its version) again and again while
/// the writers run; a reader killed and restarted, a writer that kills itself in the middle of
/// drawing, and a holder stopped with `SIGSTOP` whose slot must stay untouched until it is resumed.
@Suite(.serialized) final class SharedHandshakeTests {
    let dir = TemporaryDirectory("handshake")
    static let slots = 32, slotsPerChunk = 16

    deinit { dir.cleanup() }

    /// A running sharer: its pid and the file its standard output goes to. Once it has been
    /// waited for, its pid may be another process's: it is never signalled again.
    final class Sharer {
        let pid: pid_t
        let output: String
        private(set) var reaped = false

        init(pid: pid_t, output: String) {
            self.pid = pid
            self.output = output
        }

        var said: String { currentText(ofFile: output) ?? "" }

        /// Waits for its exit; returns the wait status.
        func wait() async throws -> Int32 {
            var status: Int32 = 0
            try await waitUntil("\(output) ended") {
                waitpid(pid, &status, WNOHANG) == pid
            }
            reaped = true
            return status
        }

        func kill(_ signal: Int32) {
            precondition(!reaped, "a process that was waited for is never signalled")
            Glibc.kill(pid, signal)
        }

        /// Kills it and waits for it, unless that was done.
        func end() {
            guard !reaped else { return }
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
    }

    var started: [Sharer] = []

    func start(_ name: String, _ role: String, operations: Int, seed: Int, extra: [String] = []) throws -> Sharer {
        let program = try #require(
            BuiltExecutable.path("fic-selftest-sharer"), "build the test harness first (swift build --build-tests builds it)")
        let output = dir.file("\(name).out")
        let pid = try ExternalTools.spawn(
            program,
            [
                "--shared", dir.file("t.fictable-shared"), "--pixels", dir.file("pixels"), "--slots", "\(Self.slots)",
                "--slots-per-chunk", "\(Self.slotsPerChunk)", "--role", role, "--operations", "\(operations)", "--seed", "\(seed)"
            ] + extra, standardOutput: output, standardError: dir.file("\(name).err"))
        let sharer = Sharer(pid: pid, output: output)
        started.append(sharer)
        return sharer
    }

    func cleanUp() {
        for sharer in started { sharer.end() }
    }

    /// The number after `key=` in a sharer's last line.
    static func value(_ key: String, in said: String) -> Int? {
        guard let line = said.split(separator: "\n").last(where: { $0.hasPrefix("done") }),
            let field = line.split(separator: " ").first(where: { $0.hasPrefix(key + "=") })
        else { return nil }
        return Int(field.dropFirst(key.count + 1))
    }

    @Test(.timeLimit(.minutes(10))) func heldSlotsAreNeverDrawnOverByAnotherProcess() async throws {
        defer { cleanUp() }
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: Self.slotsPerChunk, maximumCount: Self.slots)
        let length = layout.fileLength(chunks: 2, region: 0, buckets: 2)
        for (name, size) in [("t.fictable-shared", length), ("pixels", Self.slots * 4096)] {
            let fd = try FileDescriptor.open(
                atPath: dir.file(name), .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
            try fd.truncate(to: size, path: name)
            fd.closeQuietly()
        }
        let writer = try start("writer", "writer", operations: 60_000, seed: 1)
        let dying = try start("dying", "writer", operations: 60_000, seed: 2, extra: ["--die-after-claims", "2000"])
        let firstReader = try start("reader-1", "reader", operations: 1_000_000, seed: 3)
        let reader = try start("reader-2", "reader", operations: 300_000, seed: 4)
        let holder = try start("holder", "holder", operations: 1, seed: 5)

        // The holder holds a slot: stopped, it must find it as it was when it is resumed.
        try await waitUntil("the holder holds a slot") { holder.said.contains("holding") }
        holder.kill(SIGSTOP)
        let holding = try #require(holder.said.split(separator: "\n").first { $0.hasPrefix("holding") })
        let pairs = holding.split(separator: " ").dropFirst().map { (field: Substring) -> (String, UInt64) in
            let parts = field.split(separator: "=")
            return (String(parts[0]), UInt64(parts[1])!)
        }
        let fields = Dictionary(uniqueKeysWithValues: pairs)
        let (heldSlot, heldVersion) = (Int(fields["slot"]!), fields["version"]!)

        // A reader killed while it works (its holds left behind), and another started.
        try await waitUntil("the first reader has read") { firstReader.said.contains("reads 2000 ") }
        firstReader.kill(SIGKILL)
        _ = try await firstReader.wait()
        let restarted = try start("reader-3", "reader", operations: 300_000, seed: 6)

        let dyingStatus = try await dying.wait()
        #expect(dyingStatus & 0x7F == SIGKILL, "the dying writer killed itself mid-draw: \(dying.said.suffix(200))")
        #expect(dying.said.contains("dying slot="))
        // A writer that works after the death, whatever the first one has left to do (on a busy
        // machine it may finish first): its 2000 stores over 32 slots meet the dead writer's slot.
        let after = try start("writer-after", "writer", operations: 2_000, seed: 7)
        for sharer in [writer, reader, restarted, after] {
            let status = try await sharer.wait()
            #expect(
                status == 0,
                "\(sharer.output): wait status \(status): \(currentText(ofFile: sharer.output.replacingOccurrences(of: ".out", with: ".err")) ?? "")"
            )
        }
        for sharer in [reader, restarted] {
            #expect(Self.value("torn", in: sharer.said) == 0, "\(sharer.output): \(sharer.said.suffix(300))")
            #expect((Self.value("reads", in: sharer.said) ?? 0) > 10_000, "\(sharer.output) read: \(sharer.said.suffix(200))")
        }
        let stores = try #require(Self.value("stores", in: writer.said))
        #expect(stores > 10_000, "the writer stored: \(writer.said.suffix(200))")

        // The stopped holder's slot: its word and its pixels as they were when it was held.
        let fd = try FileDescriptor.open(atPath: dir.file("t.fictable-shared"), .readWrite, options: [.closeOnExec])
        defer { fd.closeQuietly() }
        let state = try MappedRegion(descriptor: fd, offset: 0, length: length, writable: true, path: nil)
        let pixelFile = try FileDescriptor.open(atPath: dir.file("pixels"), .readOnly, options: [.closeOnExec])
        defer { pixelFile.closeQuietly() }
        let pixels = try MappedRegion(descriptor: pixelFile, offset: 0, length: Self.slots * 4096, writable: false, path: nil)
        let cells = SlotCells(base: state.base, layout: layout)
        #expect(cells.word(heldSlot) == .committed(version: heldVersion))
        let expected = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 64)
        defer { expected.deallocate() }
        TestPattern.fill(expected, count: 4096, seed: UInt64(heldSlot) << 40 ^ heldVersion ^ 0x5EED_5EED)
        #expect(memcmp(expected, pixels.base + heldSlot * 4096, 4096) == 0, "the stopped holder's slot \(heldSlot) was drawn over")
        // No slot is left in flight: the dying writer's was taken back (its holder is dead).
        let inFlight = (0..<Self.slots).filter { cells.word($0).state == .inFlight }
        #expect(inFlight.isEmpty, "slots left in flight: \(inFlight)")
        // The killed reader's bits were cleared by the writer where it needed the slots; the
        // stopped holder's bit is still there.
        let holderIndex = try #require(Int(holder.said.split(separator: "\n").first!.split(separator: "=").last!))
        #expect(cells.isHeld(heldSlot, by: holderIndex))
        holder.kill(SIGCONT)
    }
}
