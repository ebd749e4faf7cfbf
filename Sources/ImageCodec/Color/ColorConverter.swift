import CImageCodecSupport

#if ColorManagement
import CLcms
#endif

/// Converts decoded pixels to sRGB: the one place every decoder goes through when a file's
/// colours are not sRGB (an embedded ICC profile, H.273 code points, a PNG gamma).
///
/// ```swift
/// var warnings: [String] = []
/// if let converter = ColorConverter.make(for: description, layout: .bgrx8, warnings: &warnings) {
///     converter.convert(row, to: row, count: width)   // in place: 4-byte pixels
/// }
/// ```
///
/// The intent is relative colorimetric, as browsers and libvips use. A converter is immutable
/// and shared: ``make(for:layout:warnings:)`` returns the same one for the same profile and
/// layout (a small cache), and any number of threads may convert with it at once.
package final class ColorConverter: Sendable {
    /// How the source pixels are laid out. 16-bit samples are native-endian and full-range
    /// (0…65535); alpha, when there is one, is straight (not premultiplied).
    package enum Layout: Sendable, Hashable {
        /// B, G, R and an unused byte (libjpeg's `JCS_EXT_BGRX`, cairo's `RGB24`).
        case bgrx8
        /// B, G, R, A.
        case bgra8
        /// R, G, B.
        case rgb8
        /// R, G, B, A.
        case rgba8
        /// R, G, B as 16-bit samples.
        case rgb16
        /// R, G, B, A as 16-bit samples.
        case rgba16
        /// One grey byte.
        case gray8
        /// Grey, then alpha.
        case grayAlpha8
        /// One 16-bit grey sample.
        case gray16
        /// Grey, then alpha, as 16-bit samples.
        case grayAlpha16
        /// C, M, Y, K, 0 meaning no ink.
        case cmyk8
        /// C, M, Y, K inverted, 255 meaning no ink: Adobe's CMYK (a JPEG with an Adobe `APP14`
        /// marker), and what libjpeg outputs for YCCK after its YCCK→CMYK step.
        case cmykInverted8

        /// Bytes one pixel takes.
        package var bytesPerPixel: Int {
            switch self {
            case .bgrx8, .bgra8, .rgba8, .grayAlpha16, .cmyk8, .cmykInverted8: return 4
            case .rgb8: return 3
            case .rgb16: return 6
            case .rgba16: return 8
            case .gray8: return 1
            case .grayAlpha8, .gray16: return 2
            }
        }

        /// Whether the layout carries alpha (copied to the destination).
        package var hasAlpha: Bool {
            switch self {
            case .bgra8, .rgba8, .rgba16, .grayAlpha8, .grayAlpha16: return true
            default: return false
            }
        }

        /// The colour model of the layout, which a profile must match.
        package var family: Family {
            switch self {
            case .bgrx8, .bgra8, .rgb8, .rgba8, .rgb16, .rgba16: return .rgb
            case .gray8, .grayAlpha8, .gray16, .grayAlpha16: return .gray
            case .cmyk8, .cmykInverted8: return .cmyk
            }
        }

        /// Whether samples are 16 bits.
        package var isSixteenBit: Bool {
            switch self {
            case .rgb16, .rgba16, .gray16, .grayAlpha16: return true
            default: return false
            }
        }

        /// The colour models of layouts.
        package enum Family: Sendable, Hashable {
            /// Red, green, blue.
            case rgb
            /// Grey.
            case gray
            /// Cyan, magenta, yellow, black.
            case cmyk
        }

        /// The layout's number in the C loops.
        var cLayout: fic_color_layout {
            switch self {
            case .bgrx8: return FIC_COLOR_BGRX8
            case .bgra8: return FIC_COLOR_BGRA8
            case .rgb8: return FIC_COLOR_RGB8
            case .rgba8: return FIC_COLOR_RGBA8
            case .rgb16: return FIC_COLOR_RGB16
            case .rgba16: return FIC_COLOR_RGBA16
            case .gray8: return FIC_COLOR_GRAY8
            case .grayAlpha8: return FIC_COLOR_GRAYA8
            case .gray16: return FIC_COLOR_GRAY16
            case .grayAlpha16: return FIC_COLOR_GRAYA16
            case .cmyk8: return FIC_COLOR_CMYK8
            case .cmykInverted8: return FIC_COLOR_CMYK_INVERTED8
            }
        }

        #if ColorManagement
        /// The LittleCMS pixel format of the layout (alpha and the unused byte as an extra channel).
        var lcmsFormat: cmsUInt32Number {
            switch self {
            case .bgrx8, .bgra8: return FIC_TYPE_BGRA_8
            case .rgb8: return FIC_TYPE_RGB_8
            case .rgba8: return FIC_TYPE_RGBA_8
            case .rgb16: return FIC_TYPE_RGB_16
            case .rgba16: return FIC_TYPE_RGBA_16
            case .gray8: return FIC_TYPE_GRAY_8
            case .grayAlpha8: return FIC_TYPE_GRAYA_8
            case .gray16: return FIC_TYPE_GRAY_16
            case .grayAlpha16: return FIC_TYPE_GRAYA_16
            case .cmyk8: return FIC_TYPE_CMYK_8
            case .cmykInverted8: return FIC_TYPE_CMYK_8_REV
            }
        }
        #endif
    }

    /// How a converter does its work (for tests, benchmarks and logs).
    package enum Method: Sendable, Hashable {
        /// The matrix-shaper fast path: per-channel tables, a 3 × 3 matrix, an sRGB table.
        case matrixShaper
        /// A table of colours, one per grey value, made by LittleCMS.
        case grayLookup
        /// A LittleCMS transform (LUT-based and CMYK profiles, or when the fast path is off).
        case littleCMS
        /// CMYK without a profile, the way browsers do it (see ``ColorConverter``'s `make`).
        case naiveCMYK
    }

    /// The layout of the sources this converter takes.
    package let layout: Layout
    /// What does the work.
    let engine: any ColorEngine

    init(layout: Layout, engine: any ColorEngine) {
        self.layout = layout
        self.engine = engine
    }

    /// How this converter does its work.
    package var method: Method { engine.method }

    /// Converts `count` pixels from `source` (in `layout`; 16-bit samples native-endian, full range 0…65535) to 8-bit BGRA in `destination`, alpha copied (255 when the layout has none),
    /// NOT premultiplied (the caller premultiplies after). `source` may equal `destination` when the layout is 4 bytes a pixel.
    package func convert(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, count: Int) {
        guard count > 0 else { return }
        engine.convert(layout, source, destination, count)
    }
}
