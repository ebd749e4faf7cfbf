import Foundation
import ImageCodec
import Testing

/// PNG encoding of every pixel format, checked by decoding the result.
@Suite struct PNGEncoderTests {
    static let width = 7, height = 5

    /// A deterministic bitmap in `format` (premultiplied pixels keep channels ≤ alpha), padded rows.
    static func bitmap(_ format: PixelFormat) -> (bytes: [UInt8], bytesPerRow: Int) {
        let bytesPerRow = width * format.bytesPerPixel + 6
        var bytes = [UInt8](repeating: 0xEE, count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width {
                let seed = UInt8(truncatingIfNeeded: x * 37 + y * 91 + 11)
                let at = y * bytesPerRow + x * format.bytesPerPixel
                switch format {
                case .bgra32Premultiplied:
                    let alpha = UInt8(truncatingIfNeeded: (x + y * width) * 12)
                    for c in 0..<3 { bytes[at + c] = alpha == 0 ? 0 : UInt8(truncatingIfNeeded: Int(seed) &* (c + 1)) % (alpha &+ 1) }
                    bytes[at + 3] = alpha
                case .bgrx32:
                    for c in 0..<3 { bytes[at + c] = seed &* UInt8(c + 1) }
                    bytes[at + 3] = 255
                case .rgb565:
                    let value = UInt16(seed) &* 263
                    bytes[at] = UInt8(value & 0xFF)
                    bytes[at + 1] = UInt8(value >> 8)
                case .gray8:
                    bytes[at] = seed
                }
            }
        }
        return (bytes, bytesPerRow)
    }

    /// The BGRA/BGRX a decoder must return for pixel `(x, y)` of `bitmap(format)`.
    static func expected(_ format: PixelFormat, _ bytes: [UInt8], _ bytesPerRow: Int, x: Int, y: Int) -> [UInt8] {
        let at = y * bytesPerRow + x * format.bytesPerPixel
        switch format {
        case .bgra32Premultiplied, .bgrx32:
            return Array(bytes[at..<at + 4])
        case .rgb565:
            let value = Int(bytes[at]) | Int(bytes[at + 1]) << 8
            let r = ((value >> 11) & 31) * 255, g = ((value >> 5) & 63) * 255, b = (value & 31) * 255
            return [UInt8((b + 15) / 31), UInt8((g + 31) / 63), UInt8((r + 15) / 31), 255]
        case .gray8:
            return [bytes[at], bytes[at], bytes[at], 255]
        }
    }

    @Test(arguments: PixelFormat.allCases)
    func roundTrip(format: PixelFormat) throws {
        let (bytes, bytesPerRow) = Self.bitmap(format)
        let png = try bytes.withUnsafeBytes {
            try PNGEncoder.encode(pixels: $0.baseAddress!, width: Self.width, height: Self.height, bytesPerRow: bytesPerRow, format: format)
        }
        #expect(ImageDecoder.sniffFormat(png.withUnsafeBytes { $0 }) == .png)
        let decoded = try ImageDecoder.decode(png)
        #expect(decoded.width == Self.width && decoded.height == Self.height)
        #expect(decoded.pixelFormat == (format == .bgra32Premultiplied ? .bgra32Premultiplied : .bgrx32))
        var mismatches = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let got = Array(UnsafeRawBufferPointer(start: decoded.baseAddress + y * decoded.bytesPerRow + x * 4, count: 4))
                if got != Self.expected(format, bytes, bytesPerRow, x: x, y: y) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func writeCreatesDecodableFile() throws {
        let (bytes, bytesPerRow) = Self.bitmap(.bgrx32)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fic-png-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try bytes.withUnsafeBytes {
            try PNGEncoder.write(
                pixels: $0.baseAddress!, width: Self.width, height: Self.height, bytesPerRow: bytesPerRow, format: .bgrx32, to: path)
        }
        let decoded = try ImageDecoder.decode(contentsOf: path)
        #expect(decoded.width == Self.width)
    }

    @Test func writeToMissingDirectoryIsIOError() throws {
        let (bytes, bytesPerRow) = Self.bitmap(.gray8)
        let path = "/nonexistent-fic-directory/out.png"
        let error = try #require(throws: ImageCacheError.self) {
            try bytes.withUnsafeBytes {
                try PNGEncoder.write(
                    pixels: $0.baseAddress!, width: Self.width, height: Self.height, bytesPerRow: bytesPerRow, format: .gray8, to: path)
            }
        }
        #expect(error.code == .io)
        #expect(error.path == path)
        #expect(error.errno == .noSuchFileOrDirectory)
    }

    @Test func rejectsShortRows() throws {
        let bytes = [UInt8](repeating: 0, count: 64)
        let error = try #require(throws: ImageCacheError.self) {
            try bytes.withUnsafeBytes {
                try PNGEncoder.encode(pixels: $0.baseAddress!, width: 4, height: 2, bytesPerRow: 8, format: .bgrx32)
            }
        }
        #expect(error.code == .invalidArgument)
    }
}
