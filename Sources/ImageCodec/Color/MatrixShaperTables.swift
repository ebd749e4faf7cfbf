import CImageCodecSupport

#if ColorManagement
import CLcms

/// The fast path's tables for one matrix-shaper RGB profile (see `color_matrix_shaper.c`).
///
/// Most RGB profiles in photographs (Display P3, Adobe RGB, ProPhoto, cameras') are three tone
/// curves and a 3 × 3 matrix to the D50 profile connection space; to sRGB they are the curves,
/// one matrix (the source's colorants, then the inverse of sRGB's, both D50-adapted as the
/// profiles store them) and sRGB's encoding. LittleCMS reads the profile (its curves, its
/// colorants, its sRGB profile and that curve's inverse); the C loop then does what LittleCMS's
/// own 8-bit matrix-shaper optimisation does, with the same 1.14 fixed-point arithmetic (so
/// 8-bit pixels come out as LittleCMS's), five to six times faster. 16-bit sources go through
/// each curve's 65536-value table, the matrix in single precision and the same encoding table.
///
/// `@unchecked Sendable` for the C pointer: the tables are immutable once made.
final class MatrixShaperTables: @unchecked Sendable {
    /// The C tables; immutable once made, so any number of threads may read them.
    private let tables: OpaquePointer

    private init(_ tables: OpaquePointer) {
        self.tables = tables
    }

    deinit {
        fic_matrix_shaper_destroy(tables)
    }

    /// The tables for `profile`, or nil when it is not a matrix-shaper RGB profile that
    /// LittleCMS would use as one for the relative colorimetric intent (a profile with `A2B`/`D2B`
    /// lookup tables is used through them), or one of its tags cannot be read.
    /// `sixteenBit`: also make the 16-bit sources' tables (384 KiB).
    static func make(for profile: LcmsProfile, sixteenBit: Bool) -> MatrixShaperTables? {
        let lookupTags = [cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigDToB0Tag, cmsSigDToB1Tag]
        guard profile.colorSpace == cmsSigRgbData, cmsGetPCS(profile.handle) == cmsSigXYZData,
            cmsIsMatrixShaper(profile.handle) != 0, !lookupTags.contains(where: profile.has),
            let sRGB = LcmsProfile.sRGB(in: profile.context),
            let source = colorants(of: profile), let target = colorants(of: sRGB), let inverse = inverted(target),
            let sRGBCurve = sRGB.toneCurve(cmsSigRedTRCTag), let encoding = cmsReverseToneCurve(sRGBCurve)
        else { return nil }
        defer { cmsFreeToneCurve(encoding) }
        let curves = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].compactMap(profile.toneCurve)
        guard curves.count == 3 else { return nil }

        let matrix = multiplied(inverse, source)
        var linear8 = [Float](repeating: 0, count: 3 * 256)
        for (channel, curve) in curves.enumerated() {
            for value in 0..<256 {
                linear8[channel * 256 + value] = cmsEvalToneCurveFloat(curve, Float(Double(value) / 255))
            }
        }
        var linear16: [UInt16] = []
        if sixteenBit {
            linear16 = [UInt16](repeating: 0, count: 3 * 65536)
            for (channel, curve) in curves.enumerated() {
                for value in 0..<65536 {
                    linear16[channel * 65536 + value] = cmsEvalToneCurve16(curve, UInt16(value))
                }
            }
        }
        // sRGB's encoding of i / 16384, rounded to 16 bits and then to 8, as LittleCMS fills its own table.
        var encode = [UInt8](repeating: 0, count: Int(FIC_COLOR_ENCODE_ENTRIES))
        for index in encode.indices {
            let value = min(max(cmsEvalToneCurveFloat(encoding, Float(Double(index) / 16384)), 0), 1)
            let word = UInt32(min(max(Double(value) * 65535 + 0.5, 0), 65535))
            encode[index] = UInt8((word &* 65281 &+ 8_388_608) >> 24)
        }
        let made = linear8.withUnsafeBufferPointer { linear8 in
            matrix.withUnsafeBufferPointer { matrix in
                encode.withUnsafeBufferPointer { encode in
                    linear16.withUnsafeBufferPointer { linear16 in
                        fic_matrix_shaper_create(
                            linear8.baseAddress, sixteenBit ? linear16.baseAddress : nil, matrix.baseAddress, encode.baseAddress)
                    }
                }
            }
        }
        return made.map(MatrixShaperTables.init)
    }

    /// Converts `count` pixels of an RGB layout.
    func convert(_ layout: ColorConverter.Layout, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ count: Int) {
        let done = fic_matrix_shaper_convert(tables, layout.cLayout, source, destination, count)
        precondition(done != 0, "matrix-shaper tables made for another layout")
    }

    /// A profile's colorants as a row-major matrix from RGB to XYZ (the colorants are its columns).
    private static func colorants(of profile: LcmsProfile) -> [Double]? {
        guard let r = profile.xyz(cmsSigRedColorantTag), let g = profile.xyz(cmsSigGreenColorantTag),
            let b = profile.xyz(cmsSigBlueColorantTag)
        else { return nil }
        return [r.X, g.X, b.X, r.Y, g.Y, b.Y, r.Z, g.Z, b.Z]
    }

    /// The inverse of a row-major 3 × 3 matrix, or nil when it is singular.
    private static func inverted(_ m: [Double]) -> [Double]? {
        let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let determinant = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        guard determinant.isFinite, abs(determinant) > 1e-12 else { return nil }
        let inverse = [
            e * i - f * h, c * h - b * i, b * f - c * e,
            f * g - d * i, a * i - c * g, c * d - a * f,
            d * h - e * g, b * g - a * h, a * e - b * d
        ]
        return inverse.map { $0 / determinant }
    }

    /// `a × b`, both row-major 3 × 3.
    private static func multiplied(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { index in
            let (row, column) = (index / 3, index % 3)
            return (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
        }
    }
}
#endif
