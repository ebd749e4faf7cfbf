#if ColorManagement
import CLcms

/// Builds the converter for one description and layout: reads or synthesises the profile,
/// checks it fits the layout, picks the engine (the matrix-shaper fast path, a grey table,
/// LittleCMS, or CMYK without a profile), and finds out whether the result would be sRGB anyway.
struct ColorConverterBuilder {
    let description: ColorDescription
    let layout: ColorConverter.Layout
    /// Whether the matrix-shaper fast path may be used (off only to compare it with LittleCMS).
    let fastPath: Bool

    /// The converter, or nil when the pixels are to be used as they are (sRGB already, or a
    /// description that cannot be used, with a warning saying why).
    func build(warnings: inout [String]) -> ColorConverter? {
        let fallback = layout.family == .cmyk ? ColorConverter.naiveCMYK(layout) : nil
        guard let context = LcmsContext() else {
            warnings.append(
                "LittleCMS could not make a context; colours taken as \(layout.family == .cmyk ? "CMYK without a profile" : "sRGB")")
            return fallback
        }
        var notes: [String] = []
        let profile: LcmsProfile
        switch resolveProfile(context, &notes) {
        case .sRGB:
            warnings += notes
            return fallback
        case .unusable(let reason):
            warnings += notes
            let lcms = context.takeMessages()
            warnings.append(reason + (lcms.isEmpty ? "" : " (\(lcms.joined(separator: "; ")))") + "; " + fallbackWords)
            return fallback
        case .profile(let made):
            profile = made
            warnings += notes
        }
        guard let engine = makeEngine(profile) else {
            let lcms = context.takeMessages()
            warnings.append(
                "the colour profile cannot be used" + (lcms.isEmpty ? "" : " (\(lcms.joined(separator: "; ")))") + "; " + fallbackWords)
            return fallback
        }
        let converter = ColorConverter(layout: layout, engine: engine)
        if layout.family != .cmyk && SRGBProbe.isIdentity(converter) {
            return nil  // an sRGB profile (one of its many versions): nothing to do
        }
        return converter
    }

    /// What the pixels are taken as when the description cannot be used.
    private var fallbackWords: String {
        layout.family == .cmyk ? "CMYK converted without a profile" : "colours taken as sRGB"
    }

    /// Where a description leads.
    private enum Resolution {
        case sRGB
        case profile(LcmsProfile)
        case unusable(String)
    }

    private func resolveProfile(_ context: LcmsContext, _ notes: inout [String]) -> Resolution {
        switch description {
        case .untagged, .sRGB:
            return .sRGB
        case .iccProfile(let bytes):
            // A profile shorter than its header says was cut short (a damaged file, a lost
            // APP2 marker): Chromium's skcms refuses it, and so does this, although LittleCMS
            // would read whatever tags happen to be in the part that is left.
            let declared = bytes.count >= 4 ? Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3]) : 0
            if bytes.count >= 132 && declared > bytes.count {
                return .unusable("the embedded ICC profile is cut short (\(bytes.count) of the \(declared) bytes its header declares)")
            }
            guard let profile = LcmsProfile.open(bytes, in: context) else {
                return .unusable("the embedded ICC profile (\(bytes.count) bytes) cannot be read")
            }
            let space = profile.colorSpace
            let fits =
                switch layout.family {
                case .rgb: space == cmsSigRgbData
                case .gray: space == cmsSigGrayData
                case .cmyk: space == cmsSigCmykData
                }
            guard fits else {
                return .unusable("the embedded ICC profile is for \(Self.name(of: space)) data, the pixels are \(layout.family)")
            }
            return .profile(profile)
        case .codePoints(let primaries, let transfer, _, _):
            guard layout.family != .cmyk else {
                return .unusable("colour code points (H.273) do not describe CMYK")
            }
            let curve = H273.transfer(transfer, warnings: &notes) ?? .sRGB
            let chromaticities = layout.family == .rgb ? H273.primaries(primaries, warnings: &notes) ?? .sRGB : .sRGB
            return synthesise(curve: curve, chromaticities: chromaticities, context)
        case .gamma(let gamma, let chromaticities):
            guard layout.family != .cmyk else {
                return .unusable("a gamma does not describe CMYK")
            }
            guard gamma.isFinite, gamma > 0.01, gamma < 100 else {
                return .unusable("the gamma \(gamma) is not usable")
            }
            // Within 5 % of 1/2.2 is the value writers store for sRGB data, and libpng takes it
            // as sRGB's curve too (png_gamma_not_sRGB); the pure power law would differ by up to
            // seven levels in the shadows from what the writer meant.
            let curve: TransferCurve = abs(gamma * 2.2 - 1) <= 0.05 ? .sRGB : .power(1 / gamma)
            var primaries = ColorDescription.Chromaticities.sRGB
            if let given = chromaticities, layout.family == .rgb {
                if Self.plausible(given) {
                    primaries = given
                } else {
                    notes.append("the chromaticities (cHRM) are not plausible; sRGB's are used")
                }
            }
            return synthesise(curve: curve, chromaticities: primaries, context)
        }
    }

    /// sRGB itself when both are sRGB's, else a profile made of them.
    private func synthesise(curve: TransferCurve, chromaticities: ColorDescription.Chromaticities, _ context: LcmsContext) -> Resolution {
        if curve == .sRGB && chromaticities.isClose(to: .sRGB, tolerance: 0.0005) {
            return .sRGB
        }
        guard let tone = curve.make(in: context) else {
            return .unusable("the transfer curve cannot be made")
        }
        let profile =
            layout.family == .gray
            ? LcmsProfile.gray(curve: tone, in: context)
            : LcmsProfile.rgb(chromaticities, curve: tone, in: context)
        return profile.map(Resolution.profile) ?? .unusable("a profile cannot be made from the chromaticities")
    }

    /// The engine for `profile` and the layout, or nil when LittleCMS refuses the profile.
    private func makeEngine(_ profile: LcmsProfile) -> (any ColorEngine)? {
        switch layout.family {
        case .gray:
            return GrayLookupTable(profile: profile, layout: layout)
        case .rgb where fastPath:
            if let tables = MatrixShaperTables.make(for: profile, sixteenBit: layout.isSixteenBit) {
                return tables
            }
            fallthrough
        case .rgb, .cmyk:
            // Alpha (a real channel) is copied; the unused byte of BGRX is not, and becomes 255.
            let flags = layout.hasAlpha ? cmsUInt32Number(cmsFLAGS_COPY_ALPHA) : 0
            return LcmsTransform(from: profile, layout.lcmsFormat, toSRGB: FIC_TYPE_BGRA_8, flags: flags)
        }
    }

    /// Chromaticities a profile can be made of: inside the xy diagram's square, no y of zero.
    private static func plausible(_ c: ColorDescription.Chromaticities) -> Bool {
        let values = [c.whiteX, c.whiteY, c.redX, c.redY, c.greenX, c.greenY, c.blueX, c.blueY]
        return values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 } && [c.whiteY, c.redY, c.greenY, c.blueY].allSatisfy { $0 > 0.001 }
    }

    /// A colour space's name for messages.
    private static func name(of space: cmsColorSpaceSignature) -> String {
        switch space {
        case cmsSigRgbData: return "RGB"
        case cmsSigGrayData: return "grey"
        case cmsSigCmykData: return "CMYK"
        case cmsSigLabData: return "Lab"
        default:
            let raw = space.rawValue
            let letters = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: raw >> UInt32($0)) }
            return "'" + String(decoding: letters.map { (32...126).contains($0) ? $0 : 63 }, as: UTF8.self) + "'"
        }
    }
}
#endif
