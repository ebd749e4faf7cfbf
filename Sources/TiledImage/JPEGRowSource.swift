import CImageCodecSupport
import FICCore
import ImageCodec
import SystemPackage

/// Decodes a JPEG as its bytes arrive (libjpeg with a suspending source), straight into the
/// sink's row batches: nothing but a strip of rows is ever in memory for baseline JPEGs.
///
/// Progressive (multi-scan) JPEGs need every coefficient until their last scan; above
/// `coefficientMemoryBudget` those live in an unlinked file (see `fic_jpeg_use_coefficient_file`)
/// and at most about `residentCoefficientLimit` bytes of them stay resident. Their rows come out
/// while the final scan is read (`fic_jpeg_overlap_final_scan`). Arithmetic-coded
/// JPEGs, which libjpeg cannot suspend inside, are decoded once the input is complete.
final class JPEGRowSource: RowSource {
    struct Limits {
        var maximumPixelCount: Int
        var allowCorruptData: Bool
        var coefficientMemoryBudget: Int
        var residentCoefficientLimit: Int
        /// Whether a pager thread prepares the coefficient file's pages.
        var pagesCoefficientsInBackground = true
        /// Makes the unlinked file for coefficients.
        var makeCoefficientFile: () throws -> FileDescriptor
    }

    private enum Stage { case header, start, rows, end, complete }

    private let handle: OpaquePointer
    private let sink: RowSink
    private let limits: Limits
    private var stage = Stage.header
    private var height = 0
    private var rowsDone = 0
    private var batch: RowBatch?
    private var deferUntilEnd = false
    private var coefficientFile: FileDescriptor?
    private var received = 0

    init(sink: RowSink, limits: Limits) throws {
        guard let handle = fic_jpeg_create(limits.allowCorruptData ? 0 : 1) else {
            throw ImageCacheError(.overMemoryBudget, "could not allocate a JPEG decompressor: out of memory")
        }
        self.handle = handle
        self.sink = sink
        self.limits = limits
    }

    deinit {
        fic_jpeg_destroy(handle)
        coefficientFile?.closeQuietly()
    }

    /// Bytes of coefficients kept in the file.
    var coefficientFileBytes: Int { Int(fic_jpeg_coefficient_file_bytes(handle)) }

    /// The most bytes of the coefficient file its pager thread held mapped at once (0 without one).
    var coefficientPagerPeakBytes: Int { Int(fic_jpeg_coefficient_file_peak_window(handle)) }

    /// Bytes of the coefficient file freed behind the final output pass, before the file is closed.
    var coefficientBytesFreedEarly: Int { Int(fic_jpeg_coefficient_file_freed_early(handle)) }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        received += bytes.count
        guard stage != .complete else { return }  // bytes after the end of the image are ignored
        if deferUntilEnd && received > 512 << 20 {
            throw ImageCacheError(.overMemoryBudget, "arithmetic-coded JPEGs are buffered whole, and this one is over 512 MiB")
        }
        guard fic_jpeg_append_input(handle, bytes.baseAddress, bytes.count) == 0 else {
            throw ImageCacheError(.overMemoryBudget, "could not buffer \(bytes.count) more bytes of JPEG input: out of memory")
        }
        if !deferUntilEnd { try drive() }
    }

    func finish() throws {
        fic_jpeg_set_end_of_input(handle)
        isEndDeclared = true
        deferUntilEnd = false
        try drive()
        guard stage == .complete else {
            let what = stage == .header ? "before its header was complete" : "after \(rowsDone) of \(height) rows"
            throw ImageCacheError(.truncated, "the JPEG ended \(what) (\(received) bytes received); the download or file was cut short")
        }
    }

    /// Nothing runs on another thread.
    func stop() {}

    private func check(_ status: fic_jpeg_status) throws -> Bool {
        switch status {
        case FIC_JPEG_OK: return true
        case FIC_JPEG_SUSPENDED: return false
        default: throw currentError()
        }
    }

    private func drive() throws {
        while true {
            switch stage {
            case .header:
                var header = fic_jpeg_header()
                guard try check(fic_jpeg_read_header(handle, &header)) else { return }
                try accept(header)
                stage = .start
                if header.arithmetic != 0 && !isEndDeclared {
                    deferUntilEnd = true
                    return
                }
            case .start:
                guard try check(fic_jpeg_start(handle)) else { return }
                stage = .rows
            case .rows:
                let current: RowBatch
                if let batch { current = batch } else { current = try sink.acquireBatch() }
                batch = current
                var read: UInt32 = 0
                let wanted = min(current.capacity - current.count, height - rowsDone)
                let status = fic_jpeg_read_rows(handle, current.row(current.count).assumingMemoryBound(to: UInt8.self),
                                                current.bytesPerRow, UInt32(wanted), &read)
                let finished = try check(status)
                current.count += Int(read)
                rowsDone += Int(read)
                if current.count == current.capacity || rowsDone == height {
                    batch = nil
                    try sink.submit(current)
                }
                if rowsDone == height {
                    stage = .end
                } else if !finished {
                    return
                }
            case .end:
                guard try check(fic_jpeg_finish(handle)) else { return }
                stage = .complete
            case .complete:
                return
            }
        }
    }

    private var isEndDeclared = false

    private func accept(_ header: fic_jpeg_header) throws {
        var length = 0
        var orientation = ImageOrientation.up
        if let exif = fic_jpeg_exif(handle, &length) {
            orientation = EXIFOrientationParser.orientation(tiff: UnsafeRawBufferPointer(start: exif, count: length))
        }
        let width = Int(header.width), height = Int(header.height)
        let pixels = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !pixels.overflow, pixels.partialValue <= limits.maximumPixelCount else {
            throw ImageCacheError(.dimensionsTooLarge, "the JPEG is \(width)×\(height) pixels, over the limit of \(limits.maximumPixelCount); refused before decoding")
        }
        var outWidth: UInt32 = 0, outHeight: UInt32 = 0
        _ = try check(fic_jpeg_configure(handle, 1, &outWidth, &outHeight))
        // Rows of a progressive JPEG come out while its final scan is read, not after the file.
        fic_jpeg_overlap_final_scan(handle)
        self.height = Int(outHeight)
        if header.multiple_scans != 0 && header.coefficient_bytes > UInt64(max(0, limits.coefficientMemoryBudget)) {
            let file = try limits.makeCoefficientFile()
            coefficientFile = file
            guard fic_jpeg_use_coefficient_file(handle, file.rawValue, UInt64(max(1 << 20, limits.residentCoefficientLimit)), limits.pagesCoefficientsInBackground ? 1 : 0) == 0 else {
                throw ImageCacheError(.overMemoryBudget, "out of memory preparing the coefficient file")
            }
        }
        try sink.begin(SourceHeader(format: .jpeg, width: Int(outWidth), height: Int(outHeight), orientation: orientation, hasAlpha: false))
    }

    /// libjpeg's failure as an ``ImageCacheError`` with advice.
    private func currentError() -> ImageCacheError {
        let quoted = "libjpeg: “\(String(cString: fic_jpeg_error_message(handle)))”"
        switch fic_jpeg_get_error_kind(handle) {
        case FIC_JPEG_ERR_TRUNCATED:
            return ImageCacheError(.truncated, "the JPEG data ends before the image does (\(quoted)); the download or file was cut short")
        case FIC_JPEG_ERR_UNSUPPORTED:
            return ImageCacheError(.unsupportedFormat, "the JPEG uses a feature that cannot be decoded (\(quoted)); re-encode it as a baseline or progressive 8-bit JPEG")
        case FIC_JPEG_ERR_TOO_LARGE:
            return ImageCacheError(.dimensionsTooLarge, "the JPEG is too large to decode (\(quoted))")
        case FIC_JPEG_ERR_MEMORY:
            let e = fic_jpeg_coefficient_file_errno(handle)
            if e != 0 { return ImageCacheError.system("growing the coefficient file", path: nil, errno: e) }
            return ImageCacheError(.overMemoryBudget, "decoding the JPEG ran out of memory (\(quoted))")
        case FIC_JPEG_ERR_INVALID:
            return ImageCacheError(.invalidArgument, "invalid JPEG decoding request (\(quoted))")
        default:
            return ImageCacheError(.corruptData, "the JPEG data is corrupt (\(quoted)); re-export the image, or allow corrupt data to keep what can be decoded")
        }
    }
}
