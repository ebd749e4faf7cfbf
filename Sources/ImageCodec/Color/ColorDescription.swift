/// How a file says its colours are to be understood, as its decoder read it. Untagged means sRGB,
/// as browsers and libvips assume.
public enum ColorDescription: Sendable, Hashable {
    /// No colour information: sRGB.
    case untagged
    /// An embedded ICC profile, its bytes (JPEG APP2, PNG iCCP, WebP ICCP, HEIF colr, JPEG XL,
    /// TIFF tag 34675).
    case iccProfile([UInt8])
    /// Coding-independent code points (ITU-T H.273): PNG cICP, HEIF/AVIF nclx, JPEG XL's enums.
    case codePoints(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)
    /// PNG gAMA: the file's gamma (e.g. 0.45455), and its cHRM chromaticities when present.
    case gamma(Double, chromaticities: Chromaticities?)
    /// A declaration that the data is sRGB (PNG sRGB chunk).
    case sRGB

    /// CIE xy chromaticities of a white point and three primaries (PNG cHRM).
    public struct Chromaticities: Sendable, Hashable {
        /// White point x, y.
        public var white: (x: Double, y: Double)
        /// Red primary x, y.
        public var red: (x: Double, y: Double)
        /// Green primary x, y.
        public var green: (x: Double, y: Double)
        /// Blue primary x, y.
        public var blue: (x: Double, y: Double)

        /// Chromaticities as given.
        public init(white: (x: Double, y: Double), red: (x: Double, y: Double), green: (x: Double, y: Double), blue: (x: Double, y: Double)) {
            self.white = white
            self.red = red
            self.green = green
            self.blue = blue
        }

        public static func == (a: Chromaticities, b: Chromaticities) -> Bool {
            a.white == b.white && a.red == b.red && a.green == b.green && a.blue == b.blue
        }

        public func hash(into hasher: inout Hasher) {
            for p in [white, red, green, blue] {
                hasher.combine(p.x)
                hasher.combine(p.y)
            }
        }
    }
}
