import CImageCodecSupport

#if ColorManagement
import CLcms

/// Grey through a table: a grey profile's conversion to sRGB depends on one value, so LittleCMS
/// converts every possible value once (256, or 65536 for 16-bit layouts) and the pixels are
/// looked up. The table is made in floating point: LittleCMS's own 8-bit grey transforms were
/// up to seven levels off in the shadows (a linear-light profile's grey 1 came out 6, not 13).
final class GrayLookupTable: Sendable {
    /// BGR colour per grey value, alpha byte zero.
    private let colors: [UInt32]

    /// The table for `profile` (a grey one) and a grey layout, or nil when LittleCMS refuses.
    init?(profile: LcmsProfile, layout: ColorConverter.Layout) {
        let count = layout.isSixteenBit ? 65536 : 256
        guard let transform = LcmsTransform(from: profile, FIC_TYPE_GRAY_FLT, toSRGB: FIC_TYPE_RGB_FLT, flags: 0) else { return nil }
        let grays = (0..<count).map { Float(Double($0) / Double(count - 1)) }
        var rgb = [Float](repeating: 0, count: count * 3)
        grays.withUnsafeBytes { source in
            rgb.withUnsafeMutableBytes {
                transform.run(source.baseAddress!, $0.baseAddress!, count: count, sourceBytes: 4, destinationBytes: 12)
            }
        }
        func byte(_ value: Float) -> UInt32 {
            value.isNaN ? 0 : UInt32(min(max((value * 255).rounded(), 0), 255))
        }
        colors = (0..<count).map { byte(rgb[3 * $0 + 2]) | byte(rgb[3 * $0 + 1]) << 8 | byte(rgb[3 * $0]) << 16 }
    }

    /// Converts `count` pixels of a grey layout.
    func convert(_ layout: ColorConverter.Layout, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int) {
        let done = colors.withUnsafeBufferPointer { fic_color_gray_lookup($0.baseAddress, layout.cLayout, source, destination, count) }
        precondition(done != 0, "grey table used for another layout")
    }
}
#endif
