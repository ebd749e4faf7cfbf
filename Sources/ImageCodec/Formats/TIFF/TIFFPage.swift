#if TIFF
import CTIFFSupport
import CTIFF

/// One directory of a TIFF (the first page, or one of its reduced-resolution levels): its size,
/// how its samples are stored, and how they become the package's pixels.
struct TIFFPage {
    /// The directory's facts, as libtiff read them.
    let raw: fic_tiff_directory
    /// Stored width.
    var width: Int { Int(raw.width) }
    /// Stored height.
    var height: Int { Int(raw.height) }
    /// The Orientation tag (274), as EXIF numbers it; upright when absent or out of range.
    var orientation: ImageOrientation
    /// The ICC profile (tag 34675), or untagged.
    var color: ColorDescription
    /// How the samples are read and converted, or why they cannot be.
    let plan: Result<TIFFSamplePlan, ImageCacheError>

    /// The current directory of `file`.
    init(_ file: TIFFFile) {
        let raw = file.readDirectory()
        self.raw = raw
        orientation = ImageOrientation(rawValue: Int(raw.orientation)) ?? .up
        if let icc = raw.icc, raw.icc_length > 0 {
            color = .iccProfile(Array(UnsafeRawBufferPointer(start: icc, count: Int(raw.icc_length))))
        } else {
            color = .untagged
        }
        do {
            plan = .success(try TIFFSamplePlan(raw))
        } catch {
            plan = .failure(ImageCacheError.adopting(error))
        }
    }

    /// Whether the decoded pixels carry alpha.
    var hasAlpha: Bool { (try? plan.get().layout.hasAlpha) ?? false }

    /// Whether the directory is a reduced-resolution copy of another (NewSubfileType bit 0).
    var isReducedResolution: Bool { raw.subfile_type & UInt32(FILETYPE_REDUCEDIMAGE) != 0 }

    /// The header facts of the page.
    func info(frameCount: Int) -> ImageInfo {
        ImageInfo(
            format: .tiff, width: width, height: height, orientation: orientation, hasAlpha: hasAlpha,
            color: color, bitsPerSample: Int(raw.bits_per_sample), frameCount: frameCount)
    }
}

/// How a directory's samples become the samples ``SamplePipeline`` takes.
struct TIFFSamplePlan {
    /// Where the samples come from.
    enum Source: Equatable {
        /// libtiff's strips or tiles as stored (separate planes are interleaved first).
        case native
        /// libtiff's RGBA reader (8-bit R, G, B, A, premultiplied), for layouts read no other way:
        /// YCbCr without JPEG compression, old-style JPEG, CIE L*a*b*, LogLuv and the like.
        case rgba
    }

    /// What is done to each pixel before ``SamplePipeline`` gets it.
    enum Conversion {
        /// Nothing: the samples are already in ``layout``.
        case none
        /// The samples at `channels` (in that order; alpha last, when any), at 8 or 16 bits as
        /// ``layout`` says; the colour ones inverted (MinIsWhite), alpha un-premultiplied
        /// (associated alpha: SamplePipeline premultiplies itself), 16 bits reduced to 8.
        case pick(channels: [Int], invert: Bool, unpremultiply: Bool, reduceTo8: Bool)
        /// 1-, 2- or 4-bit grey expanded to 8 bits (inverted for MinIsWhite).
        case lowBitGray(bits: Int, invert: Bool)
        /// Palette indexes of `bits` bits looked up in `table` (red, green, blue per entry, 16 bits).
        case palette(bits: Int, table: [UInt16])
    }

    /// Where the samples come from.
    var source: Source
    /// Samples in a pixel as read (all planes).
    var samplesPerPixel: Int
    /// Bits of each sample as read.
    var bitsPerSample: Int
    /// What is done to them.
    var conversion: Conversion
    /// What SamplePipeline is given.
    var layout: SamplePipeline.Layout

    /// Bytes of `count` pixels as read (rows of sub-byte samples are padded to a byte).
    func bytes(pixels count: Int) -> Int {
        (count * samplesPerPixel * bitsPerSample + 7) / 8
    }
}

extension TIFFSamplePlan {
    /// The plan for a directory, or the error naming what cannot be decoded.
    init(_ d: fic_tiff_directory) throws {
        let bits = Int(d.bits_per_sample), samples = Int(d.samples_per_pixel)
        let photometric = d.has_photometric != 0 ? Int32(d.photometric) : -1
        guard samples >= 1 else {
            throw ImageCacheError(.corruptData, "The TIFF declares \(samples) samples per pixel. The file is damaged.")
        }
        let sampleFormat = Int32(d.sample_format)
        guard sampleFormat == SAMPLEFORMAT_UINT || sampleFormat == SAMPLEFORMAT_VOID else {
            let kind =
                sampleFormat == SAMPLEFORMAT_IEEEFP ? "floating-point" : sampleFormat == SAMPLEFORMAT_INT ? "signed integer" : "complex"
            throw ImageCacheError(
                .unsupportedFormat,
                "The TIFF has \(bits)-bit \(kind) samples; only unsigned integer samples (1 to 16 bits) are decoded. Convert it to 8 or 16 bits."
            )
        }
        guard [1, 2, 4, 8, 16].contains(bits) else {
            throw ImageCacheError(
                .unsupportedFormat, "The TIFF has \(bits)-bit samples; only 1, 2, 4, 8 and 16 bits are decoded. Convert it to 8 or 16 bits."
            )
        }
        // The first extra sample is alpha when it says so (an RGB image with a fourth sample and
        // no ExtraSamples tag is read as associated alpha, as libtiff's own reader does).
        let extras = Int(d.extra_sample_count)
        func alpha(colorSamples: Int) -> (index: Int, associated: Bool)? {
            guard samples > colorSamples else { return nil }
            if extras == 0 { return colorSamples == 3 && samples == 4 ? (3, true) : nil }
            switch Int32(d.extra_samples.0) {
            case EXTRASAMPLE_ASSOCALPHA: return (colorSamples, true)
            case EXTRASAMPLE_UNASSALPHA: return (colorSamples, false)
            default: return nil
            }
        }
        let separate = d.planar_config == UInt16(PLANARCONFIG_SEPARATE) && samples > 1
        if separate && bits < 8 {
            throw ImageCacheError(
                .unsupportedFormat,
                "The TIFF stores \(bits)-bit samples in separate planes; only 8- and 16-bit samples are decoded that way. Save it with contiguous samples."
            )
        }
        func make(colorSamples: Int, alpha found: (index: Int, associated: Bool)?, invert: Bool, cmyk: Bool = false) -> TIFFSamplePlan {
            let wide = bits == 16 && !cmyk
            let layout: SamplePipeline.Layout
            switch (colorSamples, found != nil, wide) {
            case (1, false, false): layout = .gray8
            case (1, true, false): layout = .grayAlpha8
            case (1, false, true): layout = .gray16
            case (1, true, true): layout = .grayAlpha16
            case (3, false, false): layout = .rgb8
            case (3, true, false): layout = .rgba8
            case (3, false, true): layout = .rgb16
            case (3, true, true): layout = .rgba16
            default: layout = .cmyk8
            }
            let channels = Array(0..<colorSamples) + (found.map { [$0.index] } ?? [])
            let unpremultiply = found?.associated ?? false
            let reduce = bits == 16 && cmyk
            let plain = channels.count == samples && !invert && !unpremultiply && !reduce
            return TIFFSamplePlan(
                source: .native, samplesPerPixel: samples, bitsPerSample: bits,
                conversion: plain ? .none : .pick(channels: channels, invert: invert, unpremultiply: unpremultiply, reduceTo8: reduce),
                layout: layout)
        }
        switch photometric {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE:
            let invert = photometric == PHOTOMETRIC_MINISWHITE
            if bits < 8 {
                self = TIFFSamplePlan(
                    source: .native, samplesPerPixel: samples, bitsPerSample: bits,
                    conversion: .lowBitGray(bits: bits, invert: invert), layout: .gray8)
                guard samples == 1 else { throw Self.unsupported("\(bits)-bit grey with \(samples) samples per pixel") }
            } else {
                self = make(colorSamples: 1, alpha: alpha(colorSamples: 1), invert: invert)
            }
        case PHOTOMETRIC_RGB where samples >= 3 && bits >= 8:
            self = make(colorSamples: 3, alpha: alpha(colorSamples: 3), invert: false)
        case PHOTOMETRIC_YCBCR where d.jpeg_rgb != 0 && samples == 3 && bits == 8:
            self = make(colorSamples: 3, alpha: nil, invert: false)  // libtiff's JPEG codec hands out RGB
        case PHOTOMETRIC_PALETTE:
            guard samples == 1 else { throw Self.unsupported("a palette with \(samples) samples per pixel") }
            guard let red = d.colormap_red, let green = d.colormap_green, let blue = d.colormap_blue else {
                throw ImageCacheError(.corruptData, "The TIFF is a palette image without a palette (ColorMap tag). The file is damaged.")
            }
            let entries = 1 << bits
            var table = [UInt16](repeating: 0, count: entries * 3)
            for i in 0..<entries {
                table[3 * i] = red[i]
                table[3 * i + 1] = green[i]
                table[3 * i + 2] = blue[i]
            }
            // Some writers store 8-bit values in the 16-bit palette; libtiff's reader and browsers
            // scale them up when no entry is above 255.
            if table.allSatisfy({ $0 < 256 }) && table.contains(where: { $0 > 0 }) {
                for i in table.indices { table[i] *= 257 }
            }
            self = TIFFSamplePlan(
                source: .native, samplesPerPixel: 1, bitsPerSample: bits, conversion: .palette(bits: bits, table: table), layout: .rgb16)
        case PHOTOMETRIC_SEPARATED where d.inkset == UInt16(INKSET_CMYK) && samples >= 4 && bits >= 8:
            self = make(colorSamples: 4, alpha: nil, invert: false, cmyk: true)  // an alpha after the inks is not shown
        default:
            // libtiff's RGBA reader: 8 bits out, whatever went in.
            let found = alpha(colorSamples: photometric == PHOTOMETRIC_SEPARATED ? 4 : 3)
            self = TIFFSamplePlan(
                source: .rgba, samplesPerPixel: 4, bitsPerSample: 8,
                conversion: .pick(
                    channels: found == nil ? [0, 1, 2] : [0, 1, 2, 3], invert: false, unpremultiply: found != nil, reduceTo8: false),
                layout: found == nil ? .rgb8 : .rgba8)
        }
    }

    private static func unsupported(_ what: String) -> ImageCacheError {
        ImageCacheError(.unsupportedFormat, "The TIFF stores \(what), which is not decoded. Convert it to 8-bit RGB or grey.")
    }
}
#endif
