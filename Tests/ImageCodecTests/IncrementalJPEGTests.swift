import Foundation
import ImageCodec
import Testing

/// The suspending, row-by-row JPEG decoder.
@Suite struct IncrementalJPEGTests {
    /// Feeds `bytes` in chunks of `chunkSize`, collecting the rows into a BGRX bitmap.
    static func decode(_ bytes: [UInt8], chunkSize: Int, options: IncrementalJPEGDecoder.Options = .init()) throws -> (pixels: [UInt8], info: ImageInfo) {
        let decoder = IncrementalJPEGDecoder(options: options)
        var pixels: [UInt8] = []
        var nextRow = 0
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunkSize)
            try decoder.append(bytes[start..<end].withUnsafeBytes { Data($0) }) { first, rows, count in
                #expect(first == nextRow)
                #expect(rows.count == count * decoder.bytesPerRow)
                nextRow += count
                pixels.append(contentsOf: rows)
            }
            start = end
        }
        try decoder.finish()
        let info = try #require(decoder.info)
        #expect(decoder.isComplete)
        #expect(decoder.rowsDecoded == info.height)
        #expect(decoder.bytesPerRow == info.width * 4)
        return (pixels, info)
    }

    /// The one-shot decode in stored orientation, as packed BGRX bytes.
    static func oneShot(_ bytes: [UInt8]) throws -> [UInt8] {
        let image = try ImageDecoder.decode(bytes, options: DecodingOptions(applyOrientation: false))
        #expect(image.pixelFormat == .bgrx32)
        var packed: [UInt8] = []
        for y in 0..<image.height {
            packed.append(contentsOf: UnsafeRawBufferPointer(start: image.baseAddress + y * image.bytesPerRow, count: image.width * 4))
        }
        return packed
    }

    @Test(arguments: [
        "photos/astronaut.jpg", "jpeg/coffee-progressive.jpg", "jpeg/coffee-cmyk.jpg", "jpeg/coffee-gray.jpg",
        "jpeg/coffee-restart.jpg", "jpeg/coffee-arithmetic.jpg", "jpeg/odd-17x13.jpg", "jpeg/tiny-1x1.jpg",
        "jpeg/orientation/chelsea-orientation-6.jpg",
    ])
    func chunkSizesYieldIdenticalPixels(file: String) throws {
        let bytes = try TestData.bytes(file)
        let reference = try Self.oneShot(bytes)
        for chunkSize in [1, 4096, 1 << 20] {
            let (pixels, info) = try Self.decode(bytes, chunkSize: chunkSize)
            #expect(pixels == reference, "\(file) in chunks of \(chunkSize) bytes")
            #expect(info == (try ImageDecoder.info(bytes)))
        }
    }

    @Test func rowsArriveBeforeTheStreamEnds() throws {
        let bytes = try TestData.bytes("photos/hubble.jpg")
        let decoder = IncrementalJPEGDecoder()
        var delivered = 0
        try decoder.append(bytes[0..<(bytes.count / 2)].withUnsafeBytes { Data($0) }) { _, _, count in delivered += count }
        #expect(delivered > 0)
        #expect(delivered < 872)
        #expect(decoder.rowsDecoded == delivered)
        #expect(!decoder.isComplete)
        try decoder.append(bytes[(bytes.count / 2)...].withUnsafeBytes { Data($0) }) { _, _, count in delivered += count }
        try decoder.finish()
        #expect(delivered == 872)
        #expect(decoder.isComplete)
    }

    @Test(arguments: [0.1, 0.5, 0.99])
    func truncatedStreamFailsOnFinish(fraction: Double) throws {
        let bytes = try TestData.bytes("photos/coffee.jpg")
        let cut = Int(Double(bytes.count) * fraction)
        let decoder = IncrementalJPEGDecoder()
        try decoder.append(Array(bytes[0..<cut])) { _, _, _ in }
        #expect(!decoder.isComplete)
        let error = try #require(throws: ImageCacheError.self) { try decoder.finish() }
        #expect(error.code == .truncated)
        // The failure is sticky.
        let again = try #require(throws: ImageCacheError.self) { try decoder.finish() }
        #expect(again.code == error.code && again.message == error.message)
    }

    @Test func missingEndOfImageMarkerIsTruncated() throws {
        let bytes = try TestData.bytes("photos/coffee.jpg")
        let decoder = IncrementalJPEGDecoder()
        try decoder.append(Array(bytes.dropLast(2))) { _, _, _ in }
        #expect(!decoder.isComplete)
        let error = try #require(throws: ImageCacheError.self) { try decoder.finish() }
        #expect(error.code == .truncated)
    }

    @Test func progressiveWithinBudgetDecodes() throws {
        let bytes = try TestData.bytes("jpeg/coffee-progressive.jpg")
        let (pixels, info) = try Self.decode(bytes, chunkSize: 4096, options: .init(progressiveMemoryBudget: 2 << 20))
        #expect(info.width == 600)
        #expect(pixels == (try Self.oneShot(bytes)))
    }

    @Test func progressiveOverBudgetIsRefused() throws {
        let decoder = IncrementalJPEGDecoder(options: .init(progressiveMemoryBudget: 64 << 10))
        let error = try #require(throws: ImageCacheError.self) {
            try decoder.append(try TestData.bytes("jpeg/coffee-progressive.jpg")) { _, _, _ in }
        }
        #expect(error.code == .overMemoryBudget)
        #expect(error.message.contains("progressive"))
        // Baseline images are unaffected by the budget.
        let baseline = IncrementalJPEGDecoder(options: .init(progressiveMemoryBudget: 1))
        try baseline.append(try TestData.bytes("photos/coffee.jpg")) { _, _, _ in }
        try baseline.finish()
        #expect(baseline.isComplete)
    }

    @Test func nonJPEGStreamIsUnsupported() throws {
        let decoder = IncrementalJPEGDecoder()
        let error = try #require(throws: ImageCacheError.self) {
            try decoder.append(try TestData.bytes("png/astronaut-rgb.png")) { _, _, _ in }
        }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("PNG"))
    }

    @Test func emptyStreamIsEmptyInput() throws {
        let decoder = IncrementalJPEGDecoder()
        try decoder.append([UInt8]()) { _, _, _ in }
        let error = try #require(throws: ImageCacheError.self) { try decoder.finish() }
        #expect(error.code == .emptyInput)
    }

    struct Stop: Error, Equatable {}

    @Test func callbackErrorsPropagateAndStopTheDecoder() throws {
        let decoder = IncrementalJPEGDecoder()
        let bytes = try TestData.bytes("photos/coffee.jpg")
        #expect(throws: Stop.self) {
            try decoder.append(bytes) { _, _, _ in throw Stop() }
        }
        #expect(throws: Stop.self) { try decoder.finish() }
    }
}
