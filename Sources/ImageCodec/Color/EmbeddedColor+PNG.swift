import CImageCodecSupport
import Glibc

extension EmbeddedColor {
    /// The largest ICC profile an `iCCP` chunk may inflate to. Real profiles are kilobytes (CMYK
    /// ones a few megabytes); the limit keeps a hostile chunk from inflating a thousandfold.
    package static let pngProfileLimit = 4 << 20

    /// The colour information of a PNG, from its chunks before the image data: `cICP` (H.273
    /// code points), `iCCP` (a zlib-compressed ICC profile), `sRGB`, `gAMA` and `cHRM`.
    ///
    /// PNG's rule decides between them (PNG, Third Edition, 4.3): `cICP` over everything, then
    /// `iCCP`, then `sRGB`, then `gAMA` with `cHRM`. A chunk that cannot be used (a bad CRC,
    /// a wrong length, a profile that does not inflate) is ignored with a warning and the next
    /// in that order applies; of two chunks of one kind the first counts.
    package static func png(_ bytes: UnsafeRawBufferPointer) -> EmbeddedColor {
        var result = EmbeddedColor()
        guard bytes.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) else { return result }
        var codePoints: ColorDescription?
        var profile: [UInt8]?
        var sRGB = false
        var gamma: Double?
        var chromaticities: ColorDescription.Chromaticities?
        let colorChunks: Set = [PNGChunk.cICP, PNGChunk.iCCP, PNGChunk.sRGB, PNGChunk.gAMA, PNGChunk.cHRM]
        var chunks = PNGChunks(bytes)
        while let chunk = chunks.next() {
            if chunk.type == PNGChunk.IDAT || chunk.type == PNGChunk.IEND {
                result.isComplete = true
                break
            }
            guard colorChunks.contains(chunk.type) else { continue }
            let type = chunk.name, length = chunk.length
            guard chunks.crcMatches(chunk) else {
                result.warnings.append("\(type) chunk ignored: its CRC does not match")
                continue
            }
            let chunk = chunks.data(chunk)
            switch type {
            case "cICP" where codePoints == nil:
                guard length == 4 else { result.warnings.append("cICP chunk ignored: \(length) bytes instead of 4"); continue }
                guard chunk[2] == 0 else {
                    result.warnings.append("cICP chunk ignored: matrix coefficients \(chunk[2]), PNG holds RGB (0)")
                    continue
                }
                codePoints = .codePoints(primaries: Int(chunk[0]), transfer: Int(chunk[1]), matrix: 0, fullRange: chunk[3] != 0)
            case "iCCP" where profile == nil:
                switch inflateProfile(chunk) {
                case .success(let bytes): profile = bytes
                case .failure(let problem): result.warnings.append("iCCP chunk ignored: \(problem.reason)")
                }
            case "sRGB":
                if length == 1 { sRGB = true } else { result.warnings.append("sRGB chunk ignored: \(length) bytes instead of 1") }
            case "gAMA" where gamma == nil:
                let value = chunk.bigEndian32(at: 0) ?? 0
                if length == 4 && value > 0 {
                    gamma = Double(value) / 100_000
                } else {
                    result.warnings.append("gAMA chunk ignored: not a gamma")
                }
            case "cHRM" where chromaticities == nil:
                guard length == 32 else { result.warnings.append("cHRM chunk ignored: \(length) bytes instead of 32"); continue }
                let v = (0..<8).map { Double(chunk.bigEndian32(at: $0 * 4) ?? 0) / 100_000 }
                chromaticities = .init(
                    whiteX: v[0], whiteY: v[1], redX: v[2], redY: v[3], greenX: v[4], greenY: v[5], blueX: v[6], blueY: v[7])
            default:
                result.warnings.append("a second \(type) chunk ignored")
            }
        }
        if let codePoints {
            result.description = codePoints
        } else if let profile {
            result.description = .iccProfile(profile)
        } else if sRGB {
            result.description = .sRGB
        } else if let gamma {
            result.description = .gamma(gamma, chromaticities: chromaticities)
        } else if let chromaticities {
            // Chromaticities without a gamma: sRGB's curve is taken, as Chromium does.
            result.description = .gamma(1 / 2.2, chromaticities: chromaticities)
        }
        return result
    }

    /// Why an `iCCP` chunk's profile cannot be had.
    private struct ProfileProblem: Error {
        let reason: String
    }

    /// The profile of an `iCCP` chunk: a name of 1–79 bytes, a zero, compression method 0, then zlib data.
    private static func inflateProfile(_ chunk: UnsafeRawBufferPointer) -> Result<[UInt8], ProfileProblem> {
        guard let end = chunk.prefix(80).firstIndex(of: 0), end >= 1 else {
            return .failure(ProfileProblem(reason: "no profile name"))
        }
        guard end + 1 < chunk.count, chunk[end + 1] == 0 else {
            return .failure(ProfileProblem(reason: "unknown compression method"))
        }
        let compressed = UnsafeRawBufferPointer(rebasing: chunk[(end + 2)...])
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = fic_zlib_inflate(compressed.baseAddress, compressed.count, pngProfileLimit, &output, &length)
        defer { free(output) }
        switch status {
        case FIC_INFLATE_OK:
            guard let output, length > 0 else { return .failure(ProfileProblem(reason: "the profile is empty")) }
            return .success(Array(UnsafeBufferPointer(start: output, count: length)))
        case FIC_INFLATE_TOO_LARGE:
            return .failure(ProfileProblem(reason: "the profile inflates to more than \(pngProfileLimit >> 20) MiB"))
        case FIC_INFLATE_TRUNCATED:
            return .failure(ProfileProblem(reason: "the compressed profile is cut short"))
        case FIC_INFLATE_MEMORY:
            return .failure(ProfileProblem(reason: "out of memory inflating the profile"))
        default:
            return .failure(ProfileProblem(reason: "the compressed profile is corrupt"))
        }
    }
}
