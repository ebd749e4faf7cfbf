import CSpng

/// A PNG opened for decoding: its header facts, and its rows in order as 32-bit pixels
/// (premultiplied BGRA when it has alpha, else BGRX), one row at a time.
///
/// Rows come from libspng's progressive decoding as stored samples (inflated and unfiltered, no
/// conversion) and go through ``PNGRowConverter`` into a row the caller provides. Interlaced
/// (Adam7) images are the exception: their rows are complete only after the last pass, so their
/// stored samples are gathered into one image-sized buffer first.
final class PNGRowPipeline {
    let context: PNGContext
    /// Header facts: stored size, orientation (`eXIf` before the image data), alpha.
    let info: ImageInfo
    let ihdr: spng_ihdr
    private(set) var converter: PNGRowConverter
    /// The conversion of converted rows to sRGB (nil when they are sRGB already).
    private let color: RowColorStep?
    /// For 16-bit samples whose colours are converted: the conversion from the samples
    /// themselves, at their full precision (the row converter would reduce them to 8 bits first).
    private let wide: SamplePipeline?
    /// One row of 16-bit samples in host order, for rows that come big-endian as stored:
    /// allocated at the first such row, so that opening a PNG for its header (``ImageDecoder/info``
    /// has no pixel limit) never allocates a row of a width the header merely claims.
    /// Made through ``LargeBufferPool`` like every width-sized buffer (so ``AllocationProbe``
    /// sees it).
    private var swapped: LargeBufferPool.Storage?
    /// What the colour chunks said that could not be honoured.
    let warnings: [String]
    /// The stream, if any (for its read errors).
    private let stream: PNGStream?
    /// The PNG in memory, if it is there (its image data is then decoded by ``PNGImageData``).
    private var bytes: UnsafeRawBufferPointer?
    /// Whether the chunks after the image data are checked.
    private var strict = true
    /// Whether ``PNGImageData`` decoded the image data (and checked what follows it).
    private var decodedWithoutLibspng = false
    private var started = false

    /// Opens a PNG held in `bytes`, which must outlive the pipeline.
    convenience init(bytes: UnsafeRawBufferPointer, maximumPixelCount: Int, strict: Bool) throws {
        let context = try PNGContext(bytes: bytes, maximumPixelCount: maximumPixelCount, strict: strict)
        try self.init(context: context, stream: nil, orientation: PNGExifOrientation.orientation(bytes), bytes: bytes)
        self.strict = strict
    }

    /// Opens the PNG `stream` reads.
    convenience init(stream: PNGStream, maximumPixelCount: Int, strict: Bool) throws {
        let context = try PNGContext(stream: stream, maximumPixelCount: maximumPixelCount, strict: strict)
        try self.init(context: context, stream: stream, orientation: nil, bytes: nil)
    }

    /// Reads the header; `orientation` is nil for a stream, whose `eXIf` is watched as it passes.
    private init(context: PNGContext, stream: PNGStream?, orientation: ImageOrientation?, bytes: UnsafeRawBufferPointer?) throws {
        self.context = context
        self.stream = stream
        self.bytes = bytes
        var ihdr = spng_ihdr()
        try Self.check(spng_get_ihdr(context.pointer, &ihdr), stream: stream)
        var palette = spng_plte()
        var transparency = spng_trns()
        let hasPalette =
            ihdr.color_type == UInt8(SPNG_COLOR_TYPE_INDEXED.rawValue)
            && spng_get_plte(context.pointer, &palette) == 0
        let hasTransparency = spng_get_trns(context.pointer, &transparency) == 0
        // Asking for tRNS made libspng read every chunk before the image data, so a streamed
        // eXIf has passed by now.
        let orientation =
            orientation ?? stream?.exif.map { exif in
                exif.withUnsafeBytes { EXIFOrientationParser.orientation(tiff: $0) }
            } ?? .up
        self.ihdr = ihdr
        converter = try PNGRowConverter(
            ihdr: ihdr, palette: hasPalette ? palette : nil, transparency: hasTransparency ? transparency : nil
        )
        // The colour chunks come before the image data, which libspng has reached by now: in a
        // stream they have passed through its head.
        let embedded =
            bytes.map { EmbeddedColor.png($0) } ?? stream.map { stream in stream.head.withUnsafeBytes { EmbeddedColor.png($0) } }
            ?? EmbeddedColor()
        var warnings = embedded.warnings
        if stream?.headIsCut == true {
            warnings.append(
                "the chunks before the image data are over \(PNGStream.headLimit >> 20) MiB; their colour information is ignored")
        }
        let isGrey =
            ihdr.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE.rawValue)
            || ihdr.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue)
        let wideLayout: SamplePipeline.Layout? =
            switch (Int(ihdr.color_type), ihdr.bit_depth == 16 && !hasTransparency) {
            case (Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue), true): .gray16
            case (Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue), true): .grayAlpha16
            case (Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), true): .rgb16
            case (Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue), true): .rgba16
            default: nil
            }
        if let wideLayout, embedded.description != .untagged, embedded.description != .sRGB,
            case let pipeline = SamplePipeline(layout: wideLayout, color: embedded.description, warnings: &warnings),
            pipeline.converter != nil
        {
            wide = pipeline
            color = nil
        } else {
            wide = nil
            color = RowColorStep(
                color: embedded.description, rows: converter.hasAlpha ? .premultipliedBGRA : .bgrx,
                isGrey: isGrey, width: Int(ihdr.width), warnings: &warnings)
        }
        self.warnings = warnings
        info = ImageInfo(
            format: .png, width: Int(ihdr.width), height: Int(ihdr.height),
            orientation: orientation, hasAlpha: converter.hasAlpha, color: embedded.description,
            bitsPerSample: Int(ihdr.bit_depth)
        )
    }

    /// One row of stored samples into `width` pixels of sRGB at `out`.
    private func convert(_ samples: UnsafeRawPointer, into out: UnsafeMutablePointer<UInt32>) {
        guard let wide else {
            converter.convert(samples, into: out)
            color?.convert(out)
            return
        }
        var source = samples
        if converter.bigEndianSamples {  // as stored in the file, when the image data is inflated here
            let count = info.width * wide.layout.bytesPerPixel / 2
            let storage = self.swapped ?? LargeBufferPool.allocateOrFallBack(byteCount: count * 2, zeroed: false)
            self.swapped = storage
            let swapped = storage.base.assumingMemoryBound(to: UInt16.self)
            for i in 0..<count { swapped[i] = UInt16(bigEndian: samples.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)) }
            source = UnsafeRawPointer(swapped)
        }
        wide.convert(source, to: UnsafeMutableRawPointer(out), count: info.width)
    }

    /// Whether the image is Adam7-interlaced (and so decoded into a full-size buffer first).
    var isInterlaced: Bool { ihdr.interlace_method != 0 }

    /// The bytes the stored samples of one row take.
    private func storedRowBytes() throws -> Int {
        var total = 0
        try Self.check(spng_decoded_image_size(context.pointer, Int32(SPNG_FMT_PNG.rawValue), &total), stream: stream)
        return total / max(info.height, 1)
    }

    /// Decodes every row once, in order: `destination(y)` gives the memory for row `y`'s
    /// `width` pixels, and `completed(y, row)` is called once it holds them.
    func decodeRows(
        destination: (Int) -> UnsafeMutablePointer<UInt32>,
        completed: (Int, UnsafeMutablePointer<UInt32>) throws -> Void
    ) throws {
        precondition(!started, "a PNG's rows are decoded once")
        started = true
        if let bytes, !isInterlaced {
            decodedWithoutLibspng = true
            let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(ihdr.color_type)] ?? 4
            let shape = (width: info.width, height: info.height, bitDepth: Int(ihdr.bit_depth), channels: channels)
            converter.bigEndianSamples = true
            try PNGImageData.decodeRows(bytes, ihdr: shape, strict: strict) { row, samples in
                let out = destination(row)
                convert(samples, into: out)
                try completed(row, out)
            }
            return
        }
        let flags = Int32(SPNG_DECODE_PROGRESSIVE.rawValue)
        try Self.check(spng_decode_image(context.pointer, nil, 0, Int32(SPNG_FMT_PNG.rawValue), flags), stream: stream)
        let rowBytes = try storedRowBytes()
        let height = info.height
        if isInterlaced {
            let (total, overflow) = rowBytes.multipliedReportingOverflow(by: height)
            guard !overflow else {
                throw ImageCacheError(.dimensionsTooLarge, "The interlaced PNG is too large to hold while it is deinterlaced.")
            }
            // Passes OR in packed samples, so the buffer starts zeroed; libspng wants to be told a
            // length of at least the width, so there is slack after the last row.
            let stored = try LargeBufferPool.allocate(byteCount: total + decodeLength(rowBytes), zeroed: true)
            try readAll { row in stored.base + row * rowBytes }
            for y in 0..<height {
                let out = destination(y)
                convert(stored.base + y * rowBytes, into: out)
                try completed(y, out)
            }
        } else {
            let stored = try LargeBufferPool.allocate(byteCount: decodeLength(rowBytes), zeroed: false)
            var next = 0
            try readAll { row in
                if row != next {
                    // Rows of a non-interlaced image come in order; anything else is a damaged stream.
                    return nil
                }
                next += 1
                return stored.base
            } after: { row in
                let out = destination(row)
                convert(stored.base, into: out)
                try completed(row, out)
            }
            guard next == height else {
                throw ImageCacheError(
                    .truncated, "The PNG data ends after \(next) of \(height) rows. The file was cut short; download or copy it again.")
            }
        }
    }

    /// The length libspng is told a row buffer has: it insists on at least one byte per pixel even
    /// when samples are packed (it writes only the row's own bytes).
    private func decodeLength(_ rowBytes: Int) -> Int {
        max(rowBytes, info.width) + 64
    }

    /// Runs libspng's row loop: `target(row)` is where row `row`'s stored samples go, `after(row)`
    /// runs once they are there.
    private func readAll(
        target: (Int) -> UnsafeMutableRawPointer?,
        after: (Int) throws -> Void = { _ in }
    ) throws {
        let rowBytes = try storedRowBytes()
        while true {
            var rowInfo = spng_row_info()
            let status = spng_get_row_info(context.pointer, &rowInfo)
            if status == Int32(SPNG_EOI.rawValue) { return }
            try Self.check(status, stream: stream)
            let row = Int(rowInfo.row_num)
            guard row >= 0, row < info.height, let memory = target(row) else {
                throw ImageCacheError(.corruptData, "The PNG's rows arrive out of order (row \(row)). The file is damaged.")
            }
            let result = spng_decode_row(context.pointer, memory, decodeLength(rowBytes))
            if result != 0 && result != Int32(SPNG_EOI.rawValue) {
                try Self.check(result, stream: stream)
            }
            try after(row)
            if result == Int32(SPNG_EOI.rawValue) { return }
        }
    }

    /// Reads (and CRC-checks) the chunks after the image data, up to `IEND`.
    func checkTrailingChunks() throws {
        guard !decodedWithoutLibspng else { return }  // already checked
        try Self.check(spng_decode_chunks(context.pointer), stream: stream)
    }

    /// ``PNGContext/check(_:)``, preferring the stream's own read error to libspng's generic one.
    private static func check(_ code: Int32, stream: PNGStream?) throws {
        guard code != 0 else { return }
        if let failure = stream?.failure {
            if let error = failure as? ImageCacheError { throw error }
            throw ImageCacheError(.io, "Reading the PNG failed: \(failure).", underlying: failure)
        }
        try PNGContext.check(code)
    }
}
