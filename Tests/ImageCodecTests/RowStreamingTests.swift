import Foundation
@testable import ImageCodec
import Testing

/// Every format's row decoder — what tile pyramids run — fed in chunks of any size: the same
/// pixels as a one-shot decode, rows before the end for formats that stream, clear failures.
@Suite struct RowStreamingTests {
    /// The one-shot decode in stored orientation, as packed 4-byte pixels.
    static func oneShot(_ bytes: [UInt8]) throws -> [UInt8] {
        let image = try ImageDecoder.decode(bytes, options: DecodingOptions(applyOrientation: false))
        return PixelComparison.packed(image)
    }

    @Test(arguments: [
        "photos/astronaut.jpg", "jpeg/coffee-progressive.jpg", "jpeg/coffee-cmyk.jpg", "jpeg/coffee-gray.jpg",
        "jpeg/coffee-restart.jpg", "jpeg/coffee-arithmetic.jpg", "jpeg/odd-17x13.jpg", "jpeg/tiny-1x1.jpg",
        "jpeg/orientation/chelsea-orientation-6.jpg", "png/astronaut-rgb.png", "webp/astronaut-lossy.webp",
        "webp/astronaut-lossless-alpha.webp", "png/astronaut-interlaced.png", "png/astronaut-rgba-16bit.png"
    ])
    func chunkSizesYieldTheOneShotPixels(file: String) throws {
        let bytes = try TestData.bytes(file)
        let reference = try Self.oneShot(bytes)
        let info = try ImageDecoder.info(bytes)
        for chunkSize in [1, 4096, 1 << 20] where chunkSize > 1 || bytes.count < 400_000 {
            let streamed = try RowStreaming.decode(bytes, chunkSize: chunkSize)
            #expect(streamed.pixels == reference, "\(file) in chunks of \(chunkSize) bytes")
            #expect(
                streamed.header.width == info.width && streamed.header.height == info.height
                    && streamed.header.orientation == info.orientation)
        }
    }

    @Test func jpegRowsArriveBeforeTheStreamEnds() throws {
        let bytes = try TestData.bytes("photos/hubble.jpg")
        var afterHalf: Int?
        let streamed = try RowStreaming.decode(bytes, chunkSize: bytes.count / 2 + 1) { rows in
            if afterHalf == nil { afterHalf = rows }
        }
        let half = try #require(afterHalf)
        #expect(half > 0 && half < streamed.header.height, "rows came out of the first half alone: \(half) of \(streamed.header.height)")
    }

    @Test(arguments: [0.1, 0.5, 0.99])
    func aTruncatedStreamFailsOnFinish(fraction: Double) throws {
        for file in ["photos/coffee.jpg", "png/astronaut-rgb.png", "webp/astronaut-lossy.webp"] {
            let bytes = try TestData.bytes(file)
            let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
            let error = try #require(throws: ImageCacheError.self) { try RowStreaming.decode(cut, chunkSize: 4096) }
            #expect(error.code == .truncated || error.code == .corruptData, "\(file) cut at \(fraction): \(error)")
        }
    }

    @Test func aJPEGWithoutItsEndOfImageMarkerIsTruncated() throws {
        let bytes = try TestData.bytes("photos/coffee.jpg")
        let error = try #require(throws: ImageCacheError.self) { try RowStreaming.decode(Array(bytes.dropLast(2)), chunkSize: 4096) }
        #expect(error.code == .truncated)
    }

    @Test func aProgressiveJPEGOverItsBudgetKeepsItsCoefficientsInAFile() throws {
        let bytes = try TestData.bytes("jpeg/coffee-progressive.jpg")
        let streamed = try RowStreaming.decode(bytes, chunkSize: 4096, options: RowStreaming.options(coefficientMemoryBudget: 64 << 10))
        #expect(streamed.statistics.coefficientFileBytes > 64 << 10, "\(streamed.statistics)")
        #expect(streamed.pixels == (try Self.oneShot(bytes)))
    }

    @Test func bytesOfNoImageAreRefusedByName() throws {
        let error = try #require(throws: ImageCacheError.self) {
            try RowStreaming.decode(try TestData.bytes("bad/unsupported.bmp"), chunkSize: 4096)
        }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("BMP"))
        let empty = try #require(throws: ImageCacheError.self) { try RowStreaming.decode([], chunkSize: 4096) }
        #expect(empty.code == .emptyInput)
    }

    @Test func theSizeLimitIsCheckedBeforeAnyRow() throws {
        for file in ["photos/coffee.jpg", "png/astronaut-rgb.png"] {
            var rows = 0
            let error = try #require(throws: ImageCacheError.self) {
                try RowStreaming.decode(try TestData.bytes(file), chunkSize: 1 << 20, options: RowStreaming.options(maximumPixelCount: 100))
                { rows = $0 }
            }
            #expect(error.code == .dimensionsTooLarge, "\(file): \(error)")
            #expect(rows == 0)
        }
    }

    struct Stop: Error, Equatable {}

    @Test func aSinksFailureStopsTheDecoder() throws {
        for file in ["photos/coffee.jpg", "png/astronaut-rgb.png"] {
            let sink = CollectingSink()
            sink.failure = Stop()
            let bytes = try TestData.bytes(file)
            let decoder = try bytes.withUnsafeBytes { raw in try ImageFormats.sniff(raw, final: true)!.decoder }.makeRowDecoder(
                sink: sink, options: RowStreaming.options())
            #expect(throws: (any Error).self, "\(file)") {
                try bytes.withUnsafeBytes { try decoder.append($0) }
                try decoder.finish()
            }
            decoder.stop()
            #expect(sink.rowCount == 0)
        }
    }
}
