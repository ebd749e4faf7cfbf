import Foundation

/// A tone curve from encoded values to linear light, as the profiles made from code points and
/// PNG gamma need them.
enum TransferCurve: Hashable {
    /// IEC 61966-2-1.
    case sRGB
    /// The inverse of BT.709's (and BT.601's, BT.2020's) camera curve.
    case bt709
    /// The inverse of SMPTE 240M's camera curve.
    case smpte240
    /// Linear light.
    case linear
    /// A plain power law with this (decoding) exponent.
    case power(Double)
    /// SMPTE ST 2084 (PQ), relative to 203 cd/m² as white, highlights rolled off (see ``hdrToSDR(_:)``).
    case pq
    /// ARIB STD-B67 (HLG) with the 1000 cd/m² display's system gamma 1.2, relative to 75 % signal
    /// as white, highlights rolled off.
    case hlg

    #if ColorManagement
    /// The curve as a LittleCMS tone curve.
    func make(in context: LcmsContext) -> LcmsToneCurve? {
        switch self {
        case .sRGB: return .parametric(4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045], in: context)
        case .bt709: return .parametric(4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081], in: context)
        case .smpte240: return .parametric(4, [1 / 0.45, 1 / 1.1115, 0.1115 / 1.1115, 1 / 4, 0.0913], in: context)
        case .linear: return .gamma(1, in: context)
        case .power(let exponent): return .gamma(exponent, in: context)
        case .pq, .hlg:
            // Neither is a parametric ICC curve: sampled finely enough that interpolation between
            // samples is far below a level of 8-bit output.
            let samples = (0..<4096).map { Float(Self.hdrToSDR(linear(Double($0) / 4095))) }
            return .tabulated(samples, in: context)
        }
    }
    #endif

    /// Linear light of encoded `v` (0…1); for PQ and HLG relative to SDR white (so above 1 for highlights).
    func linear(_ v: Double) -> Double {
        switch self {
        case .sRGB: return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        case .bt709: return v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
        case .smpte240: return v < 0.0913 ? v / 4 : pow((v + 0.1115) / 1.1115, 1 / 0.45)
        case .linear: return v
        case .power(let exponent): return pow(v, exponent)
        case .pq:
            let (m1, m2) = (2610.0 / 16384, 2523.0 / 4096 * 128)
            let (c1, c2, c3) = (3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32)
            let p = pow(v, 1 / m2)
            let nits = 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
            return nits / 203  // BT.2408's HDR reference white
        case .hlg:
            let (a, b) = (0.17883277, 0.28466892)
            let c = 0.5 - a * log(4 * a)
            let scene = v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
            // The system gamma of a 1000 cd/m² display, per channel; 75 % signal becomes 1.
            let white = pow((exp((0.75 - c) / a) + b) / 12, 1.2)
            return pow(scene, 1.2) / white
        }
    }

    /// Linear light relative to SDR white, brought into 0…1: unchanged up to 0.8, then rolled off
    /// smoothly (same slope at the knee) towards 1, so highlights keep some gradation instead of
    /// clipping flat.
    static func hdrToSDR(_ x: Double) -> Double {
        let knee = 0.8
        guard x > knee else { return max(x, 0) }
        return knee + (1 - knee) * (1 - exp(-(x - knee) / (1 - knee)))
    }
}
