import Testing

@testable import ImageCodec

/// The TIFF sample converter's shortcut for 8-bit RGBA with associated alpha, against the long
/// way (un-premultiplied, then premultiplied by SamplePipeline) and against the arithmetic.
@Suite struct TIFFSampleConverterTests {
    /// Every colour value with every alpha (colours above their alpha too, as a damaged or
    /// hostile file holds them): the pixel the long way gives, which is each colour clamped to
    /// its alpha.
    @Test func associatedAlphaTakesTheShortWayToTheSamePixels() throws {
        var tags = TIFFSamplePlan.Tags(photometric: TIFFTag.Photometric.rgb, samplesPerPixel: 4, bitsPerSample: 8)
        tags.extraSamples = [TIFFTag.ExtraSample.associatedAlpha]
        let plan = try TIFFSamplePlan(tags)
        var warnings: [String] = []
        let converter = try TIFFSampleConverter(plan: plan, color: .untagged, capacity: 256, warnings: &warnings)
        let pipeline = SamplePipeline(layout: plan.layout, color: .untagged, warnings: &warnings)
        for alpha in 0...255 {
            var samples = [UInt8](repeating: UInt8(alpha), count: 256 * 4)
            for c in 0...255 {
                samples[c * 4] = UInt8(c)
                samples[c * 4 + 1] = UInt8(255 - c)
                samples[c * 4 + 2] = UInt8(c / 2)
            }
            var short = [UInt32](repeating: 0, count: 256), long = [UInt32](repeating: 0, count: 256)
            var unpremultiplied = [UInt8](repeating: 0, count: 256 * 4)
            samples.withUnsafeBytes { source in
                short.withUnsafeMutableBytes { converter.convert(source.baseAddress!, count: 256, into: $0.baseAddress!) }
                unpremultiplied.withUnsafeMutableBytes { converter.prepare(source.baseAddress!, count: 256, into: $0.baseAddress!) }
            }
            unpremultiplied.withUnsafeBytes { source in
                long.withUnsafeMutableBytes { pipeline.convert(source.baseAddress!, to: $0.baseAddress!, count: 256) }
            }
            #expect(short == long, "alpha \(alpha)")
            let arithmetic = (0...255).map { c -> UInt32 in
                let a = UInt32(alpha), clamp = { (v: Int) in min(UInt32(v), a) }
                return clamp(c / 2) | clamp(255 - c) << 8 | clamp(c) << 16 | a << 24
            }
            #expect(short == arithmetic, "alpha \(alpha)")
        }
    }
}
