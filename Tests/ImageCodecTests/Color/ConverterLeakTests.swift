import FICTestSupport
import ImageCodec
import Testing

/// The converters the shared cache keeps, and those it lets go, are memory LeakSanitizer can
/// account for: kept ones reachable, evicted ones freed with their LittleCMS state. Converters
/// were once held in an enum whose case Swift stores in a reference's spare bits, which
/// LeakSanitizer cannot follow: it reported every cached LittleCMS transform as leaked.
@Suite struct ConverterLeakTests {
    @Test(.enabled(if: LeakCheck.isAvailable, "runs under Address Sanitizer (scripts/test's sanitizer runs)"))
    func cachedAndEvictedTransformsAreNotLeaked() throws {
        // More distinct LittleCMS transforms than the cache keeps (16): some evicted, some kept.
        for step in 0..<24 {
            var warnings: [String] = []
            let converter = try #require(
                ColorConverter.make(
                    for: .gamma(1.0 + Double(step) / 16, chromaticities: nil), layout: .bgrx8, fastPath: false, warnings: &warnings))
            #expect(converter.method == .littleCMS)
            var pixel: [UInt8] = [10, 20, 30, 255]
            pixel.withUnsafeMutableBytes { converter.convert($0.baseAddress!, to: $0.baseAddress!, count: 1) }
        }
        #expect(LeakCheck.findsLeaks() == false, "LeakSanitizer's report is on stderr")
    }
}
