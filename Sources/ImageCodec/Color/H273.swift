/// The code points of ITU-T H.273 that describe colours: which primaries and which transfer
/// curve, turned into what a profile is built from.
enum H273 {
    /// The chromaticities of `ColourPrimaries` `code`, or nil (with a warning) when it names none
    /// that can be used; 2 (unspecified) is taken as 1, BT.709, as decoders do.
    static func primaries(_ code: Int, warnings: inout [String]) -> ColorDescription.Chromaticities? {
        typealias C = ColorDescription.Chromaticities
        let d65 = (x: 0.3127, y: 0.3290), illuminantC = (x: 0.310, y: 0.316)
        func make(_ w: (x: Double, y: Double), _ r: (Double, Double), _ g: (Double, Double), _ b: (Double, Double)) -> C {
            C(whiteX: w.x, whiteY: w.y, redX: r.0, redY: r.1, greenX: g.0, greenY: g.1, blueX: b.0, blueY: b.1)
        }
        switch code {
        case 1, 2: return .sRGB  // BT.709 (sRGB's primaries); 2: unspecified
        case 4: return make(illuminantC, (0.67, 0.33), (0.21, 0.71), (0.14, 0.08))  // BT.470 System M
        case 5: return make(d65, (0.64, 0.33), (0.29, 0.60), (0.15, 0.06))  // BT.470 System B, G; BT.601 625
        case 6, 7: return make(d65, (0.630, 0.340), (0.310, 0.595), (0.155, 0.070))  // BT.601 525, SMPTE 240M
        case 8: return make(illuminantC, (0.681, 0.319), (0.243, 0.692), (0.145, 0.049))  // generic film
        case 9: return make(d65, (0.708, 0.292), (0.170, 0.797), (0.131, 0.046))  // BT.2020, BT.2100
        case 11: return make((0.314, 0.351), (0.680, 0.320), (0.265, 0.690), (0.150, 0.060))  // SMPTE RP 431-2, DCI-P3
        case 12: return make(d65, (0.680, 0.320), (0.265, 0.690), (0.150, 0.060))  // SMPTE EG 432-1, Display P3
        case 22: return make(d65, (0.630, 0.340), (0.295, 0.605), (0.155, 0.077))  // EBU Tech. 3213-E
        default:
            // 10 is CIE XYZ itself (no RGB primaries); the others are reserved.
            warnings.append("colour primaries \(code) (H.273) are not supported; taken as sRGB's")
            return nil
        }
    }

    /// The curve of `TransferCharacteristics` `code`, or nil (with a warning) when it names none
    /// that can be used; 2 (unspecified) is taken as 13, sRGB.
    static func transfer(_ code: Int, warnings: inout [String]) -> TransferCurve? {
        switch code {
        case 2, 13: return .sRGB
        case 1, 6, 14, 15, 11, 12: return .bt709  // BT.709, BT.601, BT.2020 10/12-bit; xvYCC and BT.1361 agree on 0…1
        case 4: return .power(2.2)
        case 5: return .power(2.8)
        case 7: return .smpte240
        case 8: return .linear
        case 16:
            warnings.append("HDR transfer PQ (H.273 16) shown as SDR: 203 cd/m² is sRGB white, brighter highlights are compressed")
            return .pq
        case 18:
            warnings.append("HDR transfer HLG (H.273 18) shown as SDR: 75 % signal is sRGB white, brighter highlights are compressed")
            return .hlg
        default:
            warnings.append("transfer characteristics \(code) (H.273) are not supported; taken as sRGB's curve")
            return nil
        }
    }
}
