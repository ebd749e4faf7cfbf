/// How a file says its colours are to be understood: the colour space its pixel values are in.
///
/// Decoders read this from the file (an embedded ICC profile, PNG colour chunks, the code points
/// of HEIF/AVIF `nclx` boxes or JPEG XL headers) and hand it, with the layout of their pixels, to
/// `ColorConverter.make(for:layout:warnings:)`, which converts to sRGB when the pixels are not
/// sRGB already. A file that says nothing is ``untagged``: its pixels are taken to be sRGB, as
/// browsers take them.
public enum ColorDescription: Sendable, Hashable {
    /// The file says nothing about its colours: they are taken to be sRGB (or, for CMYK pixels,
    /// converted the simple way browsers use without a profile).
    case untagged

    /// An ICC profile (version 2 or 4) embedded in the file, its bytes exactly as stored: a JPEG's
    /// `APP2 ICC_PROFILE` markers reassembled, a PNG's inflated `iCCP` chunk, a WebP's `ICCP`
    /// chunk, a TIFF's tag 34675, a HEIF `colr` box of type `prof`/`rICC`, a JPEG XL's ICC.
    case iccProfile([UInt8])

    /// The code points of ITU-T H.273 (also ISO/IEC 23091-2): PNG's `cICP` chunk, the `nclx`
    /// colour box of HEIF and AVIF, the enumerated colour encoding of JPEG XL.
    ///
    /// - `primaries`: `ColourPrimaries` (1 BT.709/sRGB, 9 BT.2020, 11 DCI-P3, 12 Display P3, …;
    ///   2 means unspecified and is taken as 1).
    /// - `transfer`: `TransferCharacteristics` (13 sRGB, 1/6/14/15 the BT.709 curve, 8 linear,
    ///   4 gamma 2.2, 5 gamma 2.8, 16 PQ, 18 HLG, …; 2 means unspecified and is taken as 13).
    /// - `matrix`: `MatrixCoefficients`, how YCbCr was derived from RGB (0 for RGB data). Turning
    ///   YCbCr into RGB is the decoder's job; the colour engine only receives RGB.
    /// - `fullRange`: whether the samples use the full range (`true`) or the video range. Like
    ///   `matrix`, the decoder's concern: the colour engine receives full-range RGB.
    case codePoints(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)

    /// A plain gamma, as PNG's `gAMA` chunk stores it: the *encoding* exponent (the chunk's value
    /// divided by 100,000, for example 0.45455), so decoding raises a sample to `1 / gamma`;
    /// with the chromaticities of a `cHRM` chunk when the file has one, else those of sRGB.
    case gamma(Double, chromaticities: Chromaticities?)

    /// The file declares its pixels to be sRGB: PNG's `sRGB` chunk, or any other statement that
    /// the data is sRGB. Nothing needs converting.
    case sRGB

    /// The CIE 1931 xy chromaticities of a white point and three primaries (PNG `cHRM`).
    public struct Chromaticities: Sendable, Hashable {
        /// The white point's x.
        public var whiteX: Double
        /// The white point's y.
        public var whiteY: Double
        /// The red primary's x.
        public var redX: Double
        /// The red primary's y.
        public var redY: Double
        /// The green primary's x.
        public var greenX: Double
        /// The green primary's y.
        public var greenY: Double
        /// The blue primary's x.
        public var blueX: Double
        /// The blue primary's y.
        public var blueY: Double

        /// Chromaticities from the white point's and each primary's x and y.
        public init(
            whiteX: Double, whiteY: Double, redX: Double, redY: Double, greenX: Double, greenY: Double, blueX: Double, blueY: Double
        ) {
            self.whiteX = whiteX
            self.whiteY = whiteY
            self.redX = redX
            self.redY = redY
            self.greenX = greenX
            self.greenY = greenY
            self.blueX = blueX
            self.blueY = blueY
        }

        /// sRGB's (and BT.709's): D65 white, and the primaries of IEC 61966-2-1.
        public static let sRGB = Chromaticities(
            whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33, greenX: 0.30, greenY: 0.60, blueX: 0.15, blueY: 0.06)

        /// Whether every coordinate is within `tolerance` of `other`'s.
        package func isClose(to other: Chromaticities, tolerance: Double) -> Bool {
            let a = [whiteX, whiteY, redX, redY, greenX, greenY, blueX, blueY]
            let b = [other.whiteX, other.whiteY, other.redX, other.redY, other.greenX, other.greenY, other.blueX, other.blueY]
            return zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
        }
    }
}

extension ColorDescription {
    /// The description in a few words, for messages.
    package var summary: String {
        switch self {
        case .untagged: return "none"
        case .sRGB: return "sRGB"
        case .iccProfile(let bytes): return "an embedded ICC profile of \(bytes.count) bytes"
        case .codePoints(let primaries, let transfer, _, _): return "colour code points, primaries \(primaries), transfer \(transfer)"
        case .gamma(let gamma, let chromaticities): return "a gamma of \(gamma)" + (chromaticities == nil ? "" : " with chromaticities")
        }
    }
}
