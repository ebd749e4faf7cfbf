import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Bad input gives a clear error and leaves nothing behind: the TIFF has no name until complete.
@Suite struct BadInputTests {
    /// Whether `folder` holds nothing at all (no TIFF, no level file, no hidden file).
    static func expectNothingLeft(in folder: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(names.isEmpty, "left behind: \(names)", sourceLocation: sourceLocation)
        #expect(throws: ImageCacheError.self, sourceLocation: sourceLocation) { try TilePyramid.open(at: folder + "/p.tif") }
    }

    @Test(arguments: [
        ("bad/truncated-half.jpg", "truncated"), ("bad/truncated-real.jpg", "truncated"), ("bad/header-only.jpg", "truncated"),
        ("bad/truncated.png", "truncated"), ("bad/corrupt-entropy.jpg", "corruptData"), ("bad/bad-crc.png", "corruptData"),
        ("bad/bomb-65000x65000.jpg", "dimensionsTooLarge"), ("bad/bomb-100000x100000.png", "dimensionsTooLarge"),
        ("bad/empty.jpg", "emptyInput"), ("bad/random-bytes.jpg", "unsupportedFormat"), ("bad/text.jpg", "unsupportedFormat"),
        ("bad/unsupported.bmp", "unsupportedFormat")
    ])
    func badFilesFailCleanly(file: String, code: String) throws {
        let bytes = try Fixtures.bytes(file)
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        for chunk in [7, 1 << 20] {
            let error = try #require(throws: ImageCacheError.self) {
                _ = try buildPyramid(bytes, chunkSize: chunk, destination: rawTIFF(folder + "/p.tif"))
            }
            #expect(error.code.name == code, "\(file): \(error)")
            Self.expectNothingLeft(in: folder)
        }
    }

    @Test func truncatedLargeJPEGRemovesItsLevels() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 1200, height: 1100, in: folder)
        let bytes = try Fixtures.bytes(atPath: jpeg)
        try FileManager.default.removeItem(atPath: jpeg)
        for (cut, progressive) in [(0.5, false), (0.97, false)] {
            _ = progressive
            let builder = try TilePyramidBuilder(destination: rawTIFF(folder + "/p.tif"))
            try builder.append(Array(bytes[0..<Int(Double(bytes.count) * cut)]))
            // Levels are being written into unnamed files: nothing in the folder has a name yet.
            Self.expectNothingLeft(in: folder)
            let error = try #require(throws: ImageCacheError.self) { try builder.finish() }
            #expect(error.code == .truncated)
            Self.expectNothingLeft(in: folder)
            // The builder keeps failing with the first error.
            #expect(throws: ImageCacheError.self) { try builder.append([0]) }
        }
    }

    /// A FIFO path is refused at once as not a regular file, and leaves no pyramid (the time
    /// limit fails the test if the open waits for a writer).
    @Test(.timeLimit(.minutes(10))) func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let fifo = folder + "/image.jpg"
        try #require(mkfifo(fifo, 0o600) == 0)
        let error = try #require(throws: ImageCacheError.self) {
            try TilePyramidBuilder.build(contentsOf: fifo, destination: rawTIFF(folder + "/p.tif"))
        }
        #expect(error.code == .io && error.message.contains("not a regular file"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/p.tif"))
    }

    /// The stream never ends, so only the stall watch can end the build; the time limit fails
    /// the test if it does not (never a bound on how fast: a loaded machine may take long).
    @Test(.timeLimit(.minutes(5))) func stalledStreamFails() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes("photos/coffee.jpg")
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        continuation.yield(Array(bytes[0..<(bytes.count / 2)]))  // then nothing, never finished
        let error = await #expect(throws: ImageCacheError.self) {
            _ = try await TilePyramidBuilder.build(
                from: stream, destination: rawTIFF(folder + "/p.tif"), options: .init(stallTimeout: .milliseconds(300)))
        }
        #expect(error?.code == .stalled)
        continuation.finish()
        Self.expectNothingLeft(in: folder)
    }

    @Test func resetStreamFails() async throws {
        struct ConnectionReset: Error {}
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes("photos/coffee.jpg")
        let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield(Array(bytes[0..<(bytes.count / 3)]))
            continuation.finish(throwing: ConnectionReset())
        }
        let error = await #expect(throws: ImageCacheError.self) {
            _ = try await TilePyramidBuilder.build(from: stream, destination: rawTIFF(folder + "/p.tif"))
        }
        #expect(error?.code == .interrupted)
        #expect(error?.underlying is ConnectionReset)
        Self.expectNothingLeft(in: folder)
    }

    @Test func streamEndingEarlyIsTruncated() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes("photos/coffee.jpg")
        let stream = AsyncStream<[UInt8]> { continuation in
            continuation.yield(Array(bytes[0..<(bytes.count - 100)]))
            continuation.finish()
        }
        let error = await #expect(throws: ImageCacheError.self) {
            _ = try await TilePyramidBuilder.build(from: stream, destination: rawTIFF(folder + "/p.tif"))
        }
        #expect(error?.code == .truncated)
        Self.expectNothingLeft(in: folder)
    }

    @Test func completeStreamBuilds() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes("photos/coffee.jpg")
        let stream = AsyncStream<[UInt8]> { continuation in
            var start = 0
            while start < bytes.count {
                continuation.yield(Array(bytes[start..<min(bytes.count, start + 10_000)]))
                start += 10_000
            }
            continuation.finish()
        }
        let pyramid = try await TilePyramidBuilder.build(from: stream, destination: rawTIFF(folder + "/p.tif"))
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
        #expect(pyramid.statistics?.inputBytes == bytes.count)
    }

    @Test func cancelledBuildLeavesNothing() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes("photos/coffee.jpg")
        let builder = try TilePyramidBuilder(destination: rawTIFF(folder + "/p.tif"))
        try builder.append(Array(bytes[0..<(bytes.count / 2)]))
        builder.cancel()
        let error = try #require(throws: ImageCacheError.self) { try builder.finish() }
        #expect(error.code == .cancelled)
        Self.expectNothingLeft(in: folder)
    }
}

/// Bytes after the end of the image are ignored, for every streamed format.
@Suite struct TrailingBytesTests {
    @Test(arguments: ["photos/coffee.jpg", "png/astronaut-rgb.png"])
    func trailingBytesAreIgnored(file: String) throws {
        let bytes = try Fixtures.bytes(file)
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let builder = try TilePyramidBuilder(destination: .temporary(folder: folder))
        try builder.append(bytes)
        for _ in 0..<12 { try builder.append([UInt8](repeating: 0x5A, count: 1 << 20)) }  // more than the PNG channel holds
        let pyramid = try builder.finish()
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
    }
}
