import Foundation
@testable import ImageCodec
import Testing

/// EXIF orientation: parsing, transforming, and the `applyOrientation` switch.
@Suite struct OrientationTests {
    static let files = (1...8).map { "jpeg/orientation/chelsea-orientation-\($0).jpg" }

    @Test func allEightDisplayIdentically() throws {
        let upright = try ImageDecoder.decode(contentsOf: TestData.path(Self.files[0]))
        #expect(upright.width == 451 && upright.height == 300)
        for (index, file) in Self.files.enumerated() {
            let decoded = try ImageDecoder.decode(contentsOf: TestData.path(file))
            #expect(decoded.source.orientation.rawValue == index + 1)
            #expect(decoded.isOrientationApplied)
            try #require(decoded.width == upright.width && decoded.height == upright.height, "\(file)")
            let psnr = PixelComparison.psnr(decoded, upright)
            #expect(psnr >= 35, "\(file): PSNR \(psnr) dB against orientation 1")
        }
    }

    @Test(arguments: 1...8)
    func applyOrientationFalseKeepsStoredPixels(orientation: Int) throws {
        let bytes = try TestData.bytes(Self.files[orientation - 1])
        let stored = try ImageDecoder.decode(bytes, options: DecodingOptions(applyOrientation: false))
        let info = try ImageDecoder.info(bytes)
        #expect(!stored.isOrientationApplied)
        #expect(stored.width == info.width && stored.height == info.height)
        #expect(stored.width == (orientation >= 5 ? 300 : 451))
        // Transforming the stored pixels gives the upright decode.
        let upright = try ImageDecoder.decode(bytes)
        let transformed = try OrientationTransform.apply(info.orientation, to: stored)
        #expect(PixelComparison.identical(transformed, upright))
        if orientation != 1 {
            #expect(!PixelComparison.identical(stored, upright))
        }
    }

    /// The fast stepping transform agrees with the coordinate mapping on a non-square bitmap.
    @Test(arguments: 1...8)
    func transformMatchesCoordinateMapping(orientation raw: Int) throws {
        let orientation = try #require(ImageOrientation(rawValue: raw))
        let info = ImageInfo(format: .jpeg, width: 5, height: 3, orientation: orientation, hasAlpha: false)
        let image = DecodedImage(width: 5, height: 3, pixelFormat: .bgrx32, source: info, isOrientationApplied: false)
        let pixels = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        for y in 0..<3 { for x in 0..<5 { pixels[y * 5 + x] = UInt32(y * 16 + x) } }
        let result = try OrientationTransform.apply(orientation, to: image)
        #expect(result.width == info.displayWidth && result.height == info.displayHeight)
        let out = result.baseAddress.assumingMemoryBound(to: UInt32.self)
        for y in 0..<result.height {
            for x in 0..<result.width {
                let stored = OrientationTransform.storedPosition(ofDisplay: x, y, orientation: orientation, width: 5, height: 3)
                #expect(out[y * result.width + x] == UInt32(stored.y * 16 + stored.x))
            }
        }
    }

    @Test func exifParserReadsBothByteOrders() {
        // Little endian: II 2A00 08000000, 1 entry: tag 0112 type 3 count 1 value 6.
        let little: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0, 0, 0, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0, 0, 0, 0x06, 0x00, 0, 0]
        let big: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 0x01, 0x00, 0x08, 0, 0]
        #expect(little.withUnsafeBytes { EXIFOrientationParser.orientation(tiff: $0) } == .right)
        #expect(big.withUnsafeBytes { EXIFOrientationParser.orientation(tiff: $0) } == .left)
        let prefixed: [UInt8] = Array("Exif".utf8) + [0, 0] + big
        #expect(prefixed.withUnsafeBytes { EXIFOrientationParser.orientation(tiff: $0) } == .left)
    }

    @Test func exifParserSurvivesHostileData() {
        let hostile: [[UInt8]] = [
            [],
            [0x49, 0x49],
            [0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0xFF],  // IFD offset far outside
            [0x49, 0x49, 0x2A, 0x00, 0x08, 0, 0, 0, 0xFF, 0xFF],  // 65535 entries, none present
            [0x49, 0x49, 0x2A, 0x00, 0x08, 0, 0, 0, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0, 0, 0, 0x09, 0x00, 0, 0],  // value 9
            [0x49, 0x49, 0x2A, 0x00, 0x08, 0, 0, 0, 0x01, 0x00, 0x12, 0x01, 0x03],  // entry cut short
            [0x4D, 0x4D, 0x00, 0x2B, 0, 0, 0, 0x08],  // wrong magic
            [0x49, 0x49, 0x2A, 0x00, 0x06, 0, 0, 0]  // IFD overlapping the header, count read past end
        ]
        for data in hostile {
            #expect(data.withUnsafeBytes { EXIFOrientationParser.orientation(tiff: $0) } == .up)
        }
    }
}
