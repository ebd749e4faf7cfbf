import FICCore

#if JPEGXL
import CJxl

/// One libjxl decoder over a JPEG XL file held in memory: created, fed the whole file, asked for
/// its next event, destroyed. Every decode and header read goes through it, so the choices that
/// matter for hostile files are made once:
///
/// - the input is never closed: a file cut short then ends in `JXL_DEC_NEED_MORE_INPUT`, which
///   libjxl returns silently, where a closed input makes it fail and print a trace line to
///   standard error (Debian's libjxl 0.7 is built without `NDEBUG`, so every internal failure
///   prints one; there is no switch to silence them, see ``JXLFormat``);
/// - the stored orientation is kept (`JxlDecoderSetKeepOrientation`), so the package applies the
///   orientation itself, as for every other format;
/// - premultiplied alpha is handed out unpremultiplied (``SamplePipeline`` premultiplies);
/// - whole decodes get libjxl's thread pool, one thread per core.
final class JXLReader {
    /// The decoder (`JxlDecoder*`).
    let decoder: OpaquePointer
    /// The thread pool, for whole decodes.
    private let runner: UnsafeMutableRawPointer?

    /// A decoder reading `bytes` (which must outlive it) that reports `events`, on libjxl's thread
    /// pool when `threaded`.
    init(_ bytes: UnsafeRawBufferPointer, events: [JxlDecoderStatus], threaded: Bool) throws {
        _ = try CodecLibraries.requireJXL()
        guard let decoder = jxlLibrary.JxlDecoderCreate(nil) else {
            throw ImageCacheError(.overMemoryBudget, "libjxl could not create a decoder (out of memory).")
        }
        self.decoder = decoder
        runner = threaded ? jxlLibrary.JxlThreadParallelRunnerCreate(nil, jxlLibrary.JxlThreadParallelRunnerDefaultNumWorkerThreads()) : nil
        var ok = jxlLibrary.JxlDecoderSubscribeEvents(decoder, Int32(events.reduce(0) { $0 | $1.rawValue })) == JXL_DEC_SUCCESS
        ok = ok && jxlLibrary.JxlDecoderSetKeepOrientation(decoder, 1) == JXL_DEC_SUCCESS
        ok = ok && jxlLibrary.JxlDecoderSetUnpremultiplyAlpha(decoder, 1) == JXL_DEC_SUCCESS
        if let runner {
            ok = ok && jxlLibrary.JxlDecoderSetParallelRunner(decoder, jxlLibrary.JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS
        }
        ok =
            ok
            && jxlLibrary.JxlDecoderSetInput(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
                == JXL_DEC_SUCCESS
        guard ok else {
            throw ImageCacheError(
                .invalidArgument, "libjxl refused the decoder's settings (a mismatch between its header and its library).")
        }
    }

    deinit {
        jxlLibrary.JxlDecoderDestroy(decoder)
        if let runner { jxlLibrary.JxlThreadParallelRunnerDestroy(runner) }
    }

    /// The next event or request; libjxl's failures become errors.
    func next() throws -> JxlDecoderStatus {
        let status = jxlLibrary.JxlDecoderProcessInput(decoder)
        switch status {
        case JXL_DEC_ERROR: throw Self.corrupt()
        case JXL_DEC_NEED_MORE_INPUT: throw Self.truncated()
        default: return status
        }
    }

    /// Reads up to the colour encoding: the basic info and the file's colours. With
    /// `maximumPixelCount`, the size is checked as soon as it is known, before anything else is read.
    func readHeader(maximumPixelCount: Int? = nil) throws -> (basic: JxlBasicInfo, color: ColorDescription) {
        var basic = JxlBasicInfo()
        var haveBasic = false
        while true {
            switch try next() {
            case JXL_DEC_BASIC_INFO:
                guard jxlLibrary.JxlDecoderGetBasicInfo(decoder, &basic) == JXL_DEC_SUCCESS else { throw Self.corrupt() }
                if let maximumPixelCount {
                    try PixelLimits.check(
                        width: Int(basic.xsize), height: Int(basic.ysize), maximumPixelCount: maximumPixelCount, format: "JPEG XL")
                }
                haveBasic = true
            case JXL_DEC_COLOR_ENCODING:
                guard haveBasic else { throw Self.corrupt() }
                return (basic, try color(JXL_COLOR_PROFILE_TARGET_ORIGINAL))
            case JXL_DEC_SUCCESS:
                throw Self.corrupt()  // ended before its header did
            default:
                continue
            }
        }
    }

    /// How `target` (the file's own colours, or those of the pixels handed out) is described:
    /// code points when libjxl has it as an enum that H.273 can name, else ICC bytes (the file's
    /// own profile, or one libjxl makes from its enum).
    func color(_ target: JxlColorProfileTarget) throws -> ColorDescription {
        var encoding = JxlColorEncoding()
        if jxlLibrary.JxlDecoderGetColorAsEncodedProfile(decoder, nil, target, &encoding) == JXL_DEC_SUCCESS,
            let points = JXLColor.codePoints(encoding)
        {
            return points
        }
        var size = 0
        guard jxlLibrary.JxlDecoderGetICCProfileSize(decoder, nil, target, &size) == JXL_DEC_SUCCESS, size > 0 else {
            return .untagged
        }
        var profile = [UInt8](repeating: 0, count: size)
        guard jxlLibrary.JxlDecoderGetColorAsICCProfile(decoder, nil, target, &profile, size) == JXL_DEC_SUCCESS else {
            return .untagged
        }
        return .iccProfile(profile)
    }

    /// Asks libjxl for sRGB pixels (grey with the sRGB curve for grey images). It honours this for
    /// images stored in XYB (lossy ones), which it otherwise hands out in linear sRGB when they
    /// carry an ICC profile: 8-bit linear samples band badly in the shadows. Call right after the
    /// colour encoding event.
    func preferSRGB(gray: Bool) {
        var encoding = JxlColorEncoding()
        encoding.color_space = gray ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB
        encoding.white_point = JXL_WHITE_POINT_D65
        encoding.primaries = JXL_PRIMARIES_SRGB
        encoding.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
        encoding.rendering_intent = JXL_RENDERING_INTENT_RELATIVE
        _ = jxlLibrary.JxlDecoderSetPreferredColorProfile(decoder, &encoding)  // refused only for images that keep their own profile
    }

    static func corrupt() -> ImageCacheError {
        ImageCacheError(.corruptData, "The JPEG XL data is corrupt (libjxl refused it). Re-export the image.")
    }

    static func truncated() -> ImageCacheError {
        ImageCacheError(.truncated, "The JPEG XL data ends before the image does. The file was cut short; download or copy it again.")
    }
}

/// libjxl's colour encodings as ``ColorDescription``s.
enum JXLColor {
    /// H.273 code points for an encoding with D65 white, primaries H.273 names (sRGB/BT.709,
    /// BT.2100, Display P3) and a transfer function it names; nil for anything else (custom
    /// primaries or white points, a plain gamma, XYB), which is then described by an ICC profile.
    static func codePoints(_ encoding: JxlColorEncoding) -> ColorDescription? {
        if encoding.transfer_function == JXL_TRANSFER_FUNCTION_GAMMA {
            return gamma(encoding)
        }
        guard encoding.white_point == JXL_WHITE_POINT_D65 else { return nil }
        let primaries: Int
        switch encoding.color_space {
        case JXL_COLOR_SPACE_RGB:
            switch encoding.primaries {
            case JXL_PRIMARIES_SRGB: primaries = 1
            case JXL_PRIMARIES_2100: primaries = 9
            case JXL_PRIMARIES_P3: primaries = 12  // with D65: Display P3 (H.273's SMPTE EG 432-1)
            default: return nil
            }
        case JXL_COLOR_SPACE_GRAY:
            primaries = 1  // no primaries for grey; BT.709's white is D65
        default:
            return nil
        }
        switch encoding.transfer_function {
        case JXL_TRANSFER_FUNCTION_709, JXL_TRANSFER_FUNCTION_LINEAR, JXL_TRANSFER_FUNCTION_SRGB,
            JXL_TRANSFER_FUNCTION_PQ, JXL_TRANSFER_FUNCTION_DCI, JXL_TRANSFER_FUNCTION_HLG:
            // libjxl numbers these as H.273 does.
            return .codePoints(primaries: primaries, transfer: Int(encoding.transfer_function.rawValue), matrix: 0, fullRange: true)
        default:
            return nil
        }
    }

    /// A plain gamma (a PNG's gAMA, which cjxl keeps as such) as PNG's description, so that the
    /// same rule applies to it whichever format carries it (a gamma near 1/2.2 is sRGB's curve).
    /// The chromaticities are libjxl's numbers for the primaries and white point (which it fills
    /// for named ones too); nil for XYB or anything not RGB or grey.
    private static func gamma(_ encoding: JxlColorEncoding) -> ColorDescription? {
        switch encoding.color_space {
        case JXL_COLOR_SPACE_GRAY:
            return .gamma(encoding.gamma, chromaticities: nil)
        case JXL_COLOR_SPACE_RGB:
            if encoding.white_point == JXL_WHITE_POINT_D65 && encoding.primaries == JXL_PRIMARIES_SRGB {
                return .gamma(encoding.gamma, chromaticities: nil)
            }
            let given = ColorDescription.Chromaticities(
                whiteX: encoding.white_point_xy.0, whiteY: encoding.white_point_xy.1,
                redX: encoding.primaries_red_xy.0, redY: encoding.primaries_red_xy.1,
                greenX: encoding.primaries_green_xy.0, greenY: encoding.primaries_green_xy.1,
                blueX: encoding.primaries_blue_xy.0, blueY: encoding.primaries_blue_xy.1)
            return .gamma(encoding.gamma, chromaticities: given)
        default:
            return nil
        }
    }

    /// Whether `color` is plain sRGB (what the package outputs): nothing to convert.
    static func isSRGB(_ color: ColorDescription) -> Bool {
        color == .codePoints(primaries: 1, transfer: 13, matrix: 0, fullRange: true)
    }
}
#endif
