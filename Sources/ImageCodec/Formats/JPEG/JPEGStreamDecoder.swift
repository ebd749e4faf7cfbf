import FICCore
import SystemPackage

/// Decodes a JPEG as its bytes arrive (libjpeg with a suspending source), straight into the
/// sink's row batches: nothing but a strip of rows is ever in memory for baseline JPEGs.
///
/// Progressive (multi-scan) JPEGs need every coefficient until their last scan; above
/// ``RowDecodingOptions/coefficientMemoryBudget`` those live in an unlinked file (see
/// `fic_jpeg_use_coefficient_file`) and at most about ``RowDecodingOptions/residentCoefficientLimit``
/// bytes of them stay resident. Their rows come out while the final scan is read
/// (`fic_jpeg_overlap_final_scan`). Arithmetic-coded JPEGs, which libjpeg cannot suspend inside,
/// are decoded once the input is complete.
final class JPEGStreamDecoder: RowDecoder {
    private enum Stage { case header, start, rows, end, complete }

    private let decompressor: JPEGDecompressor
    private let sink: any RowSink
    private let options: RowDecodingOptions
    private var stage = Stage.header
    private var height = 0
    private var rowsDone = 0
    private var batch: RowBatch?
    private var deferUntilEnd = false
    private var isEndDeclared = false
    private var coefficientFile: FileDescriptor?
    private var received = 0

    /// The most input an arithmetic-coded JPEG, which is decoded once complete, may buffer.
    static let maximumArithmeticBytes = 512 << 20

    init(sink: any RowSink, options: RowDecodingOptions) throws {
        decompressor = try JPEGDecompressor(strict: !options.allowCorruptData)
        self.sink = sink
        self.options = options
    }

    deinit {
        coefficientFile?.closeQuietly()
    }

    var statistics: RowDecoderStatistics { decompressor.coefficientStatistics }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        received += bytes.count
        guard stage != .complete else { return }  // bytes after the end of the image are ignored
        if deferUntilEnd && received > Self.maximumArithmeticBytes {
            throw ImageCacheError(
                .overMemoryBudget,
                "arithmetic-coded JPEGs are buffered whole, and this one is over \(Self.maximumArithmeticBytes >> 20) MiB")
        }
        try decompressor.append(bytes)
        if !deferUntilEnd { try drive() }
    }

    func finish() throws {
        decompressor.setEndOfInput()
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

    private func drive() throws {
        while true {
            switch stage {
            case .header:
                guard let header = try decompressor.readHeader() else { return }
                try accept(header)
                stage = .start
                if header.raw.arithmetic != 0 && !isEndDeclared {
                    deferUntilEnd = true
                    return
                }
            case .start:
                guard try decompressor.start() == .done else { return }
                stage = .rows
            case .rows:
                let current = try batch ?? sink.acquireBatch()
                batch = current
                let wanted = min(current.capacity - current.count, height - rowsDone)
                let (read, step) = try decompressor.readRows(
                    into: current.row(current.count), bytesPerRow: current.bytesPerRow, maxRows: wanted)
                current.count += read
                rowsDone += read
                if current.count == current.capacity || rowsDone == height {
                    batch = nil
                    current.pendingColor = decompressor.defersColor ? decompressor.rowColor : nil
                    try sink.submit(current)
                }
                if rowsDone == height {
                    stage = .end
                } else if step == .needsInput {
                    return
                }
            case .end:
                guard try decompressor.finish() == .done else { return }
                stage = .complete
            case .complete:
                return
            }
        }
    }

    private func accept(_ header: JPEGDecompressor.Header) throws {
        let info = header.info
        let pixels = info.width.multipliedReportingOverflow(by: info.height)
        guard info.width > 0, info.height > 0, !pixels.overflow, pixels.partialValue <= options.maximumPixelCount else {
            throw ImageCacheError(
                .dimensionsTooLarge,
                "the JPEG is \(info.width)×\(info.height) pixels, over the limit of \(options.maximumPixelCount); refused before decoding")
        }
        let size = try decompressor.configure(scaleDenominator: 1, header: header)
        // A pyramid converts colours on its writer thread, beside the decoding one.
        decompressor.defersColor = sink.convertsColor
        // Rows of a progressive JPEG come out while its final scan is read, not after the file.
        decompressor.overlapFinalScan()
        height = size.height
        if header.raw.multiple_scans != 0 && header.raw.coefficient_bytes > UInt64(max(0, options.coefficientMemoryBudget)) {
            let file = try options.makeScratchFile()
            coefficientFile = file
            try decompressor.useCoefficientFile(
                file, residentLimit: options.residentCoefficientLimit, pager: options.pagesCoefficientsInBackground)
        }
        try sink.begin(
            SourceHeader(
                format: .jpeg, width: size.width, height: size.height, orientation: info.orientation, hasAlpha: false,
                jpegQuantization: JPEGQuantization(header.raw)))
    }
}
