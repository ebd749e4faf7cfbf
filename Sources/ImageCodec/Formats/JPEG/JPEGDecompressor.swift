import CImageCodecSupport
import CLibJPEG
import SystemPackage

/// Owns one C-side libjpeg decompressor and turns its status codes into Swift errors.
///
/// Not thread-safe; one owner drives it.
final class JPEGDecompressor {
    /// The outcome of a step that can wait for more input.
    enum Step {
        case done
        case needsInput
    }

    /// Header facts plus the EXIF orientation.
    struct Header {
        let info: ImageInfo
        let raw: fic_jpeg_header
    }

    private let handle: OpaquePointer
    /// Whether damage is refused rather than decoded past.
    private let strict: Bool
    /// The conversion of the rows libjpeg writes to sRGB BGRX (nil when they are sRGB already),
    /// chosen by ``configure(scaleDenominator:header:)`` from the header's colours.
    private(set) var rowColor: RowColorStep?
    /// Whether ``readRows(into:bytesPerRow:maxRows:)`` leaves the colour step to the caller
    /// (which hands ``rowColor`` to a sink that converts on its own thread).
    var defersColor = false
    /// What the colour information said that could not be honoured.
    private var colorWarnings: [String] = []

    /// Creates a decompressor; `strict` turns libjpeg warnings into errors.
    init(strict: Bool) throws {
        self.strict = strict
        guard let handle = fic_jpeg_create(strict ? 1 : 0) else {
            throw ImageCacheError(.overMemoryBudget, "Could not allocate a JPEG decompressor: out of memory.")
        }
        self.handle = handle
    }

    deinit {
        fic_jpeg_destroy(handle)
    }

    /// Borrows the complete stream; it must stay valid while this object is used.
    func setInput(_ bytes: UnsafeRawBufferPointer) {
        fic_jpeg_set_input(handle, bytes.baseAddress, bytes.count)
    }

    /// Copies the next chunk of an incremental stream.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        guard fic_jpeg_append_input(handle, bytes.baseAddress, bytes.count) == 0 else {
            throw ImageCacheError(.overMemoryBudget, "Could not buffer \(bytes.count) more bytes of JPEG input: out of memory.")
        }
    }

    /// The bytes buffered but not yet consumed by libjpeg.
    var bufferedBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: fic_jpeg_buffered_data(handle), count: fic_jpeg_buffered_bytes(handle))
    }

    /// Declares the end of the stream.
    func setEndOfInput() {
        fic_jpeg_set_end_of_input(handle)
    }

    /// Reads the header; `nil` when more input is needed.
    func readHeader() throws -> Header? {
        var raw = fic_jpeg_header()
        switch try check(fic_jpeg_read_header(handle, &raw)) {
        case .needsInput: return nil
        case .done: break
        }
        var length = 0
        var orientation = ImageOrientation.up
        if let exif = fic_jpeg_exif(handle, &length) {
            orientation = EXIFOrientationParser.orientation(tiff: UnsafeRawBufferPointer(start: exif, count: length))
        }
        var payloads: [UnsafeRawBufferPointer] = []
        var marker: Int32 = 0
        while let data = fic_jpeg_saved_marker(handle, Int32(payloads.count), &marker, &length) {
            payloads.append(
                marker == 0xE2 ? UnsafeRawBufferPointer(start: data, count: length) : UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let embedded = EmbeddedColor.jpeg(app2Payloads: payloads.filter { !$0.isEmpty })
        colorWarnings = embedded.warnings
        let info = ImageInfo(
            format: .jpeg, width: Int(raw.width), height: Int(raw.height),
            orientation: orientation, hasAlpha: false, color: embedded.description
        )
        return Header(info: info, raw: raw)
    }

    /// Sets the output to sRGB BGRX at scale `1/denominator` (converting the colours of `header`,
    /// the one ``readHeader()`` returned); returns the output size.
    func configure(scaleDenominator: Int, header: Header) throws -> PixelSize {
        var width: UInt32 = 0, height: UInt32 = 0
        _ = try check(fic_jpeg_configure(handle, Int32(scaleDenominator), &width, &height))
        let stored = J_COLOR_SPACE(rawValue: UInt32(header.raw.color_space))
        // libjpeg hands CMYK (and YCCK, which it turns into CMYK) out as stored; Adobe's writers,
        // the only ones with the marker, store it inverted, as libjpeg's YCCK step also gives.
        let rows: RowColorStep.Rows = stored == JCS_CMYK || stored == JCS_YCCK ? .cmyk(inverted: header.raw.saw_adobe_marker != 0) : .bgrx
        rowColor = RowColorStep(
            color: header.info.color, rows: rows, isGrey: stored == JCS_GRAYSCALE, width: Int(width), warnings: &colorWarnings)
        return PixelSize(width: Int(width), height: Int(height))
    }

    /// `jpeg_start_decompress`.
    func start() throws -> Step {
        try check(fic_jpeg_start(handle))
    }

    /// Reads up to `maxRows` BGRX rows into `destination`; returns how many were read and whether
    /// input ran dry.
    func readRows(into destination: UnsafeMutableRawPointer, bytesPerRow: Int, maxRows: Int) throws -> (rows: Int, step: Step) {
        var read: UInt32 = 0
        let status = fic_jpeg_read_rows(
            handle, destination.assumingMemoryBound(to: UInt8.self), bytesPerRow, UInt32(clamping: maxRows), &read
        )
        let step = try check(status)
        if let rowColor, !defersColor {
            for row in 0..<Int(read) { rowColor.convert(destination + row * bytesPerRow) }
        }
        return (Int(read), step)
    }

    /// The index of the next output row.
    var outputScanline: Int { Int(fic_jpeg_output_scanline(handle)) }

    /// `jpeg_finish_decompress`: reads up to the end-of-image marker.
    func finish() throws -> Step {
        try check(fic_jpeg_finish(handle))
    }

    /// For a progressive JPEG configured at scale 1/8: reads scans only until every coefficient the
    /// output needs is known to within `maximumPointTransform` low bits, then starts output (see
    /// `fic_jpeg_start_partial`). Returns how many scans were read and whether that was all of them.
    func startPartial(maximumPointTransform: Int) throws -> (scans: Int, allScans: Bool) {
        var scans: Int32 = 0, all: Int32 = 0
        guard try check(fic_jpeg_start_partial(handle, Int32(maximumPointTransform), &scans, &all)) == .done else {
            throw ImageCacheError(
                .truncated, "The JPEG data ends before the image does. The file was cut short; download or copy it again.")
        }
        return (Int(scans), all != 0)
    }

    /// Ends a decode started with ``startPartial(maximumPointTransform:)``, releasing libjpeg's
    /// image memory (the coefficients) right away.
    func finishPartial() throws {
        _ = try check(fic_jpeg_finish_partial(handle))
    }

    /// The recoverable warnings libjpeg reported (the first few), in its words, then what the
    /// colour information said that could not be honoured.
    var warnings: [String] {
        (0..<Int(fic_jpeg_warning_count(handle))).compactMap { index in
            fic_jpeg_warning_message(handle, Int32(index)).map { String(cString: $0) }
        } + colorWarnings
    }

    /// Makes a progressive JPEG's rows come out while its final scan is read (see
    /// `fic_jpeg_overlap_final_scan`). After ``configure(scaleDenominator:header:)``, before ``start()``.
    func overlapFinalScan() {
        fic_jpeg_overlap_final_scan(handle)
    }

    /// Keeps a progressive JPEG's coefficients in `file` (an unlinked scratch file) instead of
    /// memory, at most about `residentLimit` bytes of it resident; with `pager`, a thread prepares
    /// its pages ahead of the decoder (see `fic_jpeg_use_coefficient_file`).
    func useCoefficientFile(_ file: FileDescriptor, residentLimit: Int, pager: Bool) throws {
        guard fic_jpeg_use_coefficient_file(handle, file.rawValue, UInt64(max(1 << 20, residentLimit)), pager ? 1 : 0) == 0 else {
            throw ImageCacheError(.overMemoryBudget, "Out of memory preparing the JPEG's coefficient file.")
        }
    }

    /// What the coefficient file held: its bytes, the most its pager held mapped at once, and the
    /// bytes freed behind the final output pass.
    var coefficientStatistics: RowDecoderStatistics {
        var statistics = RowDecoderStatistics()
        statistics.coefficientFileBytes = Int(fic_jpeg_coefficient_file_bytes(handle))
        statistics.coefficientPagerPeakBytes = Int(fic_jpeg_coefficient_file_peak_window(handle))
        statistics.coefficientBytesFreedEarly = Int(fic_jpeg_coefficient_file_freed_early(handle))
        return statistics
    }

    /// The most bytes mapped at once for libjpeg's large buffers so far.
    var peakMappedBytes: Int { Int(fic_jpeg_peak_mapped_bytes(handle)) }

    private func check(_ status: fic_jpeg_status) throws -> Step {
        switch status {
        case FIC_JPEG_OK: return .done
        case FIC_JPEG_SUSPENDED: return .needsInput
        default: throw currentError()
        }
    }

    /// The libjpeg failure as an ``ImageCacheError`` with advice.
    private func currentError() -> ImageCacheError {
        let text = String(cString: fic_jpeg_error_message(handle))
        let quoted = "libjpeg: “\(text)”"
        switch fic_jpeg_get_error_kind(handle) {
        case FIC_JPEG_ERR_TRUNCATED:
            return ImageCacheError(
                .truncated, "The JPEG data ends before the image does (\(quoted)). The file was cut short; download or copy it again.")
        case FIC_JPEG_ERR_UNSUPPORTED:
            return ImageCacheError(
                .unsupportedFormat,
                "The JPEG uses a feature this decoder does not support (\(quoted)). Re-encode it as a baseline or progressive 8-bit JPEG.")
        case FIC_JPEG_ERR_TOO_LARGE:
            return ImageCacheError(.dimensionsTooLarge, "The JPEG is too large to decode (\(quoted)).")
        case FIC_JPEG_ERR_MEMORY:
            let e = fic_jpeg_coefficient_file_errno(handle)
            if e != 0 { return ImageCacheError.system("growing the JPEG's coefficient file", path: nil, errno: Errno(rawValue: e)) }
            return ImageCacheError(.overMemoryBudget, "Decoding the JPEG ran out of memory (\(quoted)).")
        case FIC_JPEG_ERR_INVALID:
            return ImageCacheError(.invalidArgument, "Invalid JPEG decoding request (\(quoted)).")
        default:
            let advice =
                strict
                ? "Re-export the image, or decode it without strict checking (allowCorruptData) to see what can be recovered."
                : "Re-export the image."
            return ImageCacheError(.corruptData, "The JPEG data is corrupt (\(quoted)). \(advice)")
        }
    }
}
