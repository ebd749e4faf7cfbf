import Foundation
import ImageCodec
import Testing

/// Format detection from magic numbers, and file errors.
@Suite struct SniffingTests {
    @Test func recognisesSignatures() {
        func sniff(_ bytes: [UInt8]) -> ImageFileFormat? { bytes.withUnsafeBytes { ImageDecoder.sniffFormat($0) } }
        #expect(sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil)
        #expect(sniff(Array("GIF89a".utf8)) == .gif)
        #expect(sniff(Array("GIF87a".utf8)) == .gif)
        #expect(sniff([0xFF, 0x0A, 0xFA]) == .jxl)
        #expect(sniff([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == .jxl)
        #expect(sniff(Array("BM".utf8)) == nil)
        #expect(sniff([0xFF, 0xD8]) == nil)
        #expect(sniff([]) == nil)
    }

    @Test func fileNameDoesNotMatter() throws {
        // A PNG stored under a .jpg name decodes as PNG.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fic-\(UUID().uuidString).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(try TestData.bytes("png/astronaut-rgb.png")).write(to: URL(fileURLWithPath: path))
        let decoded = try ImageDecoder.decode(contentsOf: path)
        #expect(decoded.source.format == .png)
    }

    @Test func shortSignaturePrefixIsTruncated() throws {
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode([UInt8]([0xFF, 0xD8])) }
        #expect(error.code == .truncated)
    }

    @Test func textIsCalledText() throws {
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(Array("hello, world".utf8)) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("text"))
    }

    @Test func missingFileIsIOErrorWithPathAndErrno() throws {
        let path = "/nonexistent-fic-\(UUID().uuidString).jpg"
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(contentsOf: path) }
        #expect(error.code == .io)
        #expect(error.path == path)
        #expect(error.errno == .noSuchFileOrDirectory)
        #expect(error.description.contains(path))
    }

    @Test func directoryIsIOError() throws {
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(contentsOf: TestData.root) }
        #expect(error.code == .io)
        #expect(error.errno == .isDirectory)
    }

    /// A FIFO no one writes to would block an open that waits for a writer: it is refused at once,
    /// as not a regular file (the time limit fails the test if the open waits).
    @Test(.timeLimit(.minutes(10))) func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let fifo = NSTemporaryDirectory() + "/fic-fifo-\(UInt64.random(in: 0...UInt64.max))"
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(contentsOf: fifo) }
        #expect(error.code == .io && error.path == fifo && error.message.contains("not a regular file"), "\(error)")
        #expect(throws: ImageCacheError.self) { try ImageDecoder.estimatedMemory(ofFileAt: fifo) }
    }

    @Test func aTruncatedJPEGIsRefusedStrictOrNot() throws {
        let bytes = try TestData.bytes("bad/truncated-half.jpg")
        for allow in [true, false] {
            let error = try #require(throws: ImageCacheError.self) {
                try ImageDecoder.decode(bytes, options: DecodingOptions(allowCorruptData: allow))
            }
            #expect(error.code == .truncated)
        }
    }
}
