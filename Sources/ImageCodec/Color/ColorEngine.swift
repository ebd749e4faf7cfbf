import CImageCodecSupport

#if ColorManagement
import CLcms
#endif

/// What converts a ``ColorConverter``'s pixels: the matrix-shaper tables, a grey table, a
/// LittleCMS transform, or CMYK without a profile.
///
/// A class held as an existential, so that the converter keeps a plain reference to it. An enum
/// of these references (as the engine once was) keeps its case in the pointer's spare high bits;
/// LeakSanitizer cannot follow such a pointer and reported every cached LittleCMS transform, and
/// LittleCMS's state under it, as leaked.
protocol ColorEngine: AnyObject, Sendable {
    /// How this engine works.
    var method: ColorConverter.Method { get }
    /// Converts `count` pixels in `layout` to 8-bit straight BGRA (see ``ColorConverter/convert(_:to:count:)``).
    func convert(_ layout: ColorConverter.Layout, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int)
}

/// CMYK without a profile, the way browsers do it (see ``ColorConverter``'s `make`).
final class NaiveCMYKEngine: ColorEngine {
    /// Whether the samples are stored inverted (255 is no ink), as Adobe's JPEGs store them.
    let inverted: Bool

    init(inverted: Bool) {
        self.inverted = inverted
    }

    var method: ColorConverter.Method { .naiveCMYK }

    func convert(_ layout: ColorConverter.Layout, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int) {
        fic_color_naive_cmyk(inverted ? 1 : 0, source, destination, count)
    }
}

#if ColorManagement
extension MatrixShaperTables: ColorEngine {
    var method: ColorConverter.Method { .matrixShaper }
}

extension GrayLookupTable: ColorEngine {
    var method: ColorConverter.Method { .grayLookup }
}

extension LcmsTransform: ColorEngine {
    var method: ColorConverter.Method { .littleCMS }

    func convert(_ layout: ColorConverter.Layout, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int) {
        run(source, destination, count: count, sourceBytes: layout.bytesPerPixel, destinationBytes: 4)
        // Without an alpha channel to copy, LittleCMS leaves the destination's fourth byte as it was.
        if !layout.hasAlpha { fic_color_set_opaque(destination, count) }
    }
}
#endif
