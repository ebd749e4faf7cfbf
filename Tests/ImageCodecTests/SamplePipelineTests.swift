@testable import ImageCodec
import Testing

/// Every sample layout a decoder can hand over becomes the package's pixels: BGRX, or
/// premultiplied BGRA, 16-bit samples rounded, untagged CMYK as browsers show it.
@Suite struct SamplePipelineTests {
    /// Converts one pixel's bytes; returns the output as B, G, R, A bytes.
    static func convert(_ bytes: [UInt8], _ layout: SamplePipeline.Layout) -> [UInt8] {
        var warnings: [String] = []
        let pipeline = SamplePipeline(layout: layout, color: .untagged, warnings: &warnings)
        var out: UInt32 = 0
        bytes.withUnsafeBytes { pipeline.convert($0.baseAddress!, to: &out, count: 1) }
        return withUnsafeBytes(of: out.littleEndian) { Array($0) }
    }

    static func le16(_ values: [UInt16]) -> [UInt8] { values.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }

    @Test func opaqueLayouts() {
        #expect(Self.convert([10, 20, 30, 0], .bgrx8) == [10, 20, 30, 255])
        #expect(Self.convert([30, 20, 10], .rgb8) == [10, 20, 30, 255])
        #expect(Self.convert([77], .gray8) == [77, 77, 77, 255])
        // 16 bits: 0x8080 is 32896 → 32896 × 255 / 65535 = 128 exactly; 0xFFFF → 255; 257 → 1.
        #expect(Self.convert(Self.le16([0x8080, 0xFFFF, 257]), .rgb16) == [1, 255, 128, 255])
        #expect(Self.convert(Self.le16([0x8080]), .gray16) == [128, 128, 128, 255])
    }

    @Test func alphaIsPremultipliedWithRounding() {
        // 200 × 51 / 255 = 40, 100 × 51 / 255 = 20, 50 × 51 / 255 = 10.
        #expect(Self.convert([200, 100, 50, 51], .rgba8) == [10, 20, 40, 51])
        #expect(Self.convert([50, 100, 200, 51], .bgra8) == [10, 20, 40, 51])
        #expect(Self.convert([200, 100, 50, 0], .rgba8) == [0, 0, 0, 0])
        #expect(Self.convert([200, 51], .grayAlpha8) == [40, 40, 40, 51])
        #expect(Self.convert(Self.le16([0xFFFF, 0, 0, 0x3333]), .rgba16) == [0, 0, 51, 51])
        #expect(Self.convert(Self.le16([0xFFFF, 0x3333]), .grayAlpha16) == [51, 51, 51, 51])
    }

    @Test func untaggedCMYKAsBrowsersShowIt() {
        // No ink is white, full black is black, 50 % cyan halves red.
        #expect(Self.convert([0, 0, 0, 0], .cmyk8) == [255, 255, 255, 255])
        #expect(Self.convert([0, 0, 0, 255], .cmyk8) == [0, 0, 0, 255])
        #expect(Self.convert([128, 0, 0, 0], .cmyk8) == [255, 255, 127, 255])
        // Adobe stores the inks inverted.
        #expect(Self.convert([127, 255, 255, 255], .cmykInverted8) == [255, 255, 127, 255])
    }
}
