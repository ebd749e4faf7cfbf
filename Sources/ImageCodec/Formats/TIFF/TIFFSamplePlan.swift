/// How a TIFF directory's samples become the samples ``SamplePipeline`` takes: which to pick,
/// whether to invert, un-premultiply, expand or look them up. Made from the directory's tag values
/// alone, so that both readers of TIFFs use it: libtiff's (the TIFF format, under its trait) and
/// the pyramidal TIFF reader's own, which reads tiles by range without libtiff.
package struct TIFFSamplePlan: Sendable, Hashable {
    /// The bit depths whose samples are decoded (and whose palettes are read).
    package static let decodedBitDepths: Set<Int> = [1, 2, 4, 8, 16]

    /// Where the samples come from.
    package enum Source: Sendable, Hashable {
        /// The strips or tiles as stored (separate planes are interleaved first).
        case native
        /// libtiff's RGBA reader (8-bit R, G, B, A, premultiplied), for layouts read no other way:
        /// YCbCr without JPEG compression, old-style JPEG, CIE L*a*b*, LogLuv and the like.
        case rgba
    }

    /// What is done to each pixel before ``SamplePipeline`` gets it.
    package enum Conversion: Sendable, Hashable {
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

    /// The tag values the plan is made from.
    package struct Tags: Sendable {
        /// PhotometricInterpretation (`TIFFTag.Photometric`), nil when the directory has none.
        package var photometric: Int?
        /// SamplesPerPixel.
        package var samplesPerPixel: Int
        /// BitsPerSample (of every sample).
        package var bitsPerSample: Int
        /// SampleFormat (`TIFFTag.SampleFormat`).
        package var sampleFormat = TIFFTag.SampleFormat.unsignedInteger
        /// ExtraSamples (`TIFFTag.ExtraSample`), in order.
        package var extraSamples: [Int] = []
        /// Whether the samples are in separate planes (PlanarConfiguration 2).
        package var separatePlanes = false
        /// Whether YCbCr samples arrive as RGB (JPEG-compressed, decoded by a JPEG decoder).
        package var yCbCrDecodedAsRGB = false
        /// InkSet (`TIFFTag.InkSet`).
        package var inkSet = TIFFTag.InkSet.cmyk
        /// The ColorMap's red, green and blue entries (`1 << bitsPerSample` each), when present.
        package var palette: (red: [UInt16], green: [UInt16], blue: [UInt16])?

        /// Tag values; the others take TIFF's defaults.
        package init(photometric: Int?, samplesPerPixel: Int, bitsPerSample: Int) {
            self.photometric = photometric
            self.samplesPerPixel = samplesPerPixel
            self.bitsPerSample = bitsPerSample
        }
    }

    /// Where the samples come from.
    package var source: Source
    /// Samples in a pixel as read (all planes).
    package var samplesPerPixel: Int
    /// Bits of each sample as read.
    package var bitsPerSample: Int
    /// What is done to them.
    package var conversion: Conversion
    /// What SamplePipeline is given.
    package var layout: SamplePipeline.Layout

    /// Bytes of `count` pixels as read (rows of sub-byte samples are padded to a byte).
    package func bytes(pixels count: Int) -> Int {
        (count * samplesPerPixel * bitsPerSample + 7) / 8
    }

    package init(source: Source, samplesPerPixel: Int, bitsPerSample: Int, conversion: Conversion, layout: SamplePipeline.Layout) {
        self.source = source
        self.samplesPerPixel = samplesPerPixel
        self.bitsPerSample = bitsPerSample
        self.conversion = conversion
        self.layout = layout
    }
}

extension TIFFSamplePlan {
    /// The plan for a directory whose tags are `d`.
    ///
    /// - Throws: `.unsupportedFormat` naming what is not decoded (floating-point or signed samples,
    ///   bit depths other than 1, 2, 4, 8 and 16, sub-byte samples in planes, a palette or grey
    ///   image with extra samples); `.corruptData` for no samples, or a palette image without one.
    package init(_ d: Tags) throws {
        let bits = d.bitsPerSample, samples = d.samplesPerPixel
        guard samples >= 1 else {
            throw ImageCacheError(.corruptData, "The TIFF declares \(samples) samples per pixel. The file is damaged.")
        }
        guard d.sampleFormat == TIFFTag.SampleFormat.unsignedInteger || d.sampleFormat == TIFFTag.SampleFormat.void else {
            let kind =
                d.sampleFormat == TIFFTag.SampleFormat.floatingPoint
                ? "floating-point" : d.sampleFormat == TIFFTag.SampleFormat.signedInteger ? "signed integer" : "complex"
            throw ImageCacheError(
                .unsupportedFormat,
                "The TIFF has \(bits)-bit \(kind) samples; only unsigned integer samples (1 to 16 bits) are decoded. Convert it to 8 or 16 bits."
            )
        }
        guard Self.decodedBitDepths.contains(bits) else {
            throw ImageCacheError(
                .unsupportedFormat, "The TIFF has \(bits)-bit samples; only 1, 2, 4, 8 and 16 bits are decoded. Convert it to 8 or 16 bits."
            )
        }
        // The first extra sample is alpha when it says so (an RGB image with a fourth sample and
        // no ExtraSamples tag is read as associated alpha, as libtiff's own reader does).
        func alpha(colorSamples: Int) -> (index: Int, associated: Bool)? {
            guard samples > colorSamples else { return nil }
            guard let first = d.extraSamples.first else { return colorSamples == 3 && samples == 4 ? (3, true) : nil }
            switch first {
            case TIFFTag.ExtraSample.associatedAlpha: return (colorSamples, true)
            case TIFFTag.ExtraSample.unassociatedAlpha: return (colorSamples, false)
            default: return nil
            }
        }
        if d.separatePlanes && samples > 1 && bits < 8 {
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
        switch d.photometric {
        case TIFFTag.Photometric.minIsBlack, TIFFTag.Photometric.minIsWhite:
            let invert = d.photometric == TIFFTag.Photometric.minIsWhite
            if bits < 8 {
                guard samples == 1 else { throw Self.unsupported("\(bits)-bit grey with \(samples) samples per pixel") }
                self = TIFFSamplePlan(
                    source: .native, samplesPerPixel: samples, bitsPerSample: bits,
                    conversion: .lowBitGray(bits: bits, invert: invert), layout: .gray8)
            } else {
                self = make(colorSamples: 1, alpha: alpha(colorSamples: 1), invert: invert)
            }
        case TIFFTag.Photometric.rgb where samples >= 3 && bits >= 8:
            self = make(colorSamples: 3, alpha: alpha(colorSamples: 3), invert: false)
        case TIFFTag.Photometric.yCbCr where d.yCbCrDecodedAsRGB && samples == 3 && bits == 8:
            self = make(colorSamples: 3, alpha: nil, invert: false)  // the JPEG decoder hands out RGB
        case TIFFTag.Photometric.palette:
            guard samples == 1 else { throw Self.unsupported("a palette with \(samples) samples per pixel") }
            let entries = 1 << bits
            guard let palette = d.palette, palette.red.count >= entries, palette.green.count >= entries, palette.blue.count >= entries
            else {
                throw ImageCacheError(.corruptData, "The TIFF is a palette image without a palette (ColorMap tag). The file is damaged.")
            }
            var table = [UInt16](repeating: 0, count: entries * 3)
            for i in 0..<entries {
                table[3 * i] = palette.red[i]
                table[3 * i + 1] = palette.green[i]
                table[3 * i + 2] = palette.blue[i]
            }
            // Some writers store 8-bit values in the 16-bit palette; libtiff's reader and browsers
            // scale them up when no entry is above 255.
            if table.allSatisfy({ $0 < 256 }) && table.contains(where: { $0 > 0 }) {
                for i in table.indices { table[i] *= 257 }
            }
            self = TIFFSamplePlan(
                source: .native, samplesPerPixel: 1, bitsPerSample: bits, conversion: .palette(bits: bits, table: table), layout: .rgb16)
        case TIFFTag.Photometric.separated where d.inkSet == TIFFTag.InkSet.cmyk && samples >= 4 && bits >= 8:
            self = make(colorSamples: 4, alpha: nil, invert: false, cmyk: true)  // an alpha after the inks is not shown
        default:
            // libtiff's RGBA reader: 8 bits out, whatever went in.
            let found = alpha(colorSamples: d.photometric == TIFFTag.Photometric.separated ? 4 : 3)
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
