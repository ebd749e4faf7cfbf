import FICTestSupport
import Foundation
import Glibc
import ImageCodec
import Testing
@testable import TiledImage

/// The pieces between the decoder and the disk: the byte channel of streamed PNGs, band writes in
/// flight, and the choice of how many bands a level keeps.
@Suite struct WriterInternalsTests {
    @Test func channelHandsOverWhatHasArrivedWithoutWaitingForMore() throws {
        let channel = ByteChannel(limit: 1 << 20)
        let ten: [UInt8] = Array(0..<10)
        #expect(ten.withUnsafeBytes { channel.push($0) })
        var buffer = [UInt8](repeating: 0, count: 100)
        let first = try buffer.withUnsafeMutableBytes { try channel.read(into: $0) }
        #expect(first == 10, "a read returns the ten bytes there, not a full buffer")
        #expect(Array(buffer[0..<10]) == ten)
        channel.end()
        #expect(try buffer.withUnsafeMutableBytes { try channel.read(into: $0) } == 0, "0 at the end")
    }

    /// The producer says when it calls `push`, and the consumer reads only then: a push that did
    /// not wait for room would return at once, before the read, and the order would show it.
    @Test func channelMakesTheProducerWaitForRoomAndCancels() async throws {
        let channel = ByteChannel(limit: 16)
        let order = LockedBox<[String]>([])
        #expect([UInt8](repeating: 1, count: 20).withUnsafeBytes { channel.push($0) })  // over the limit now
        let producer = try WorkerThread {
            order.withLockedValue { $0.append("pushing") }
            let accepted = [UInt8](repeating: 2, count: 4).withUnsafeBytes { channel.push($0) }
            order.withLockedValue { $0.append("pushed \(accepted)") }
        }
        try await waitUntil("the producer pushes") { order.withLockedValue { $0.contains("pushing") } }
        var buffer = [UInt8](repeating: 0, count: 8)
        order.withLockedValue { $0.append("read") }
        #expect(try buffer.withUnsafeMutableBytes { try channel.read(into: $0) } == 8)
        producer.join()
        #expect(order.withLockedValue { $0 } == ["pushing", "read", "pushed true"], "the second push waited while 20 bytes were buffered")
        channel.cancel()
        #expect(throws: ImageCacheError.self) { try buffer.withUnsafeMutableBytes { try channel.read(into: $0) } }
        #expect(![UInt8](repeating: 3, count: 4).withUnsafeBytes { channel.push($0) })
    }

    @Test func bandWritesLandAtTheirOffsets() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let file = try Directory.open(folder, create: false).openFile("file", writable: true, create: true, exclusive: true)
        defer { file.closeQuietly() }
        let writes = try WritesInFlight(capacity: 2, tags: 2, path: folder)
        // Five segments of 4 KiB (more than the two slots: the writer waits for room), 8 KiB apart
        // in the file, from a buffer where they are 4 KiB apart.
        let source = try PageBuffer(count: 5 * 4096)
        for segment in 0..<5 { (source.base + segment * 4096).initializeMemory(as: UInt8.self, repeating: UInt8(segment + 1), count: 4096) }
        try writes.submit(source.base, length: 4096, bufferStride: 4096, count: 5, to: file, offset: 4096, fileStride: 8192, tag: 1)
        try writes.wait(forTag: 1)
        try writes.waitAll()
        var back = [UInt8](repeating: 0, count: 11 * 4096)
        let n = try back.withUnsafeMutableBytes { try file.readAll(into: $0, at: 0, path: folder) }
        #expect(n == 10 * 4096)
        for page in 0..<10 {
            let expected: UInt8 = page % 2 == 1 ? UInt8(page / 2 + 1) : 0
            #expect(back[(page * 4096)..<(page * 4096 + 4096)].allSatisfy { $0 == expected }, "page \(page)")
        }
    }

    @Test func aFailedBandWriteIsReported() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let directory = try Directory.open(folder, create: false)
        try directory.openFile("file", writable: true, create: true, exclusive: true).closeQuietly()
        let file = try directory.openFile("file", writable: false)
        defer { file.closeQuietly() }
        let writes = try WritesInFlight(capacity: 4, tags: 1, path: folder)
        let source = try PageBuffer(count: 4096)
        let error = try #require(throws: ImageCacheError.self) {
            try writes.submit(source.base, length: 4096, bufferStride: 4096, count: 1, to: file, offset: 0, fileStride: 4096, tag: 0)
            try writes.wait(forTag: 0)
        }
        #expect(error.errno == .badFileDescriptor)
        #expect(error.path == folder)
        // The failure sticks: later calls report it too.
        #expect(throws: ImageCacheError.self) { try writes.waitAll() }
    }

    @Test func lowMemoryModeWritesTheSameTiles() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 1300, height: 700, in: folder)
        let bytes = try Fixtures.bytes(atPath: jpeg)
        let overlapped = try buildPyramid(bytes, chunkSize: 65_536, destination: .temporary(folder: folder))
        let lean = try buildPyramid(bytes, chunkSize: 65_536, destination: .temporary(folder: folder), options: .init(overlapWrites: false))
        for level in overlapped.geometry.levels {
            #expect(try Bitmap(level: level.index, of: overlapped) == Bitmap(level: level.index, of: lean))
        }
        try expectPyramid(lean, matches: Bitmap(decoding: bytes))
    }
}
