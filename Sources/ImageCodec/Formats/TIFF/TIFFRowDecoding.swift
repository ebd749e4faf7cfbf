import FICCore
import SystemPackage

#if TIFF
extension TIFFFormat {
    /// Spools the bytes to a scratch file as they arrive (a TIFF's directory usually comes last,
    /// so nothing can be decoded before the end) and decodes from it at the end.
    package static func makeRowDecoder(sink: any RowSink, options: RowDecodingOptions) throws -> any RowDecoder {
        TIFFSpoolingRowDecoder(sink: sink, options: options)
    }

    /// Reads the file where it lies (`pread` through libtiff's client procedures), a band at a
    /// time — a strip, a row of tiles — converting each band's rows straight into the sink's
    /// batches: memory holds one band of stored samples and the sink's batches, whatever the
    /// image's size. TIFF data starts at the file's start (`offset` 0).
    package static func decodeRows(ofFile file: FileDescriptor, from offset: Int, size: Int, sink: any RowSink, options: RowDecodingOptions)
        throws -> RowDecoderStatistics
    {
        guard offset == 0 else { throw ImageCacheError(.invalidArgument, "a TIFF starts at its file's first byte, not at byte \(offset)") }
        let tiff = try TIFFFile(file: file, size: size)
        let contents = try TIFFContents(tiff)
        let main = contents.main
        try PixelLimits.check(width: main.width, height: main.height, maximumPixelCount: options.maximumPixelCount, format: "TIFF")
        // A pyramid converts colours on its writer thread, beside the decoding one.
        let reader = try TIFFBandReader(file: tiff, page: main, allowCorruptData: options.allowCorruptData, defersColor: sink.convertsColor)
        try sink.begin(
            SourceHeader(
                format: .tiff, width: main.width, height: main.height, orientation: main.orientation,
                hasAlpha: reader.pixelFormat == .bgra32Premultiplied))
        var filler = RowBatchFiller(sink)
        filler.pendingColor = reader.rowColor
        try reader.readBands {
            for i in 0..<reader.bandRows {
                reader.convert(row: i, into: try filler.nextRow())
                try filler.rowWritten()
            }
        }
        try filler.flush()
        var statistics = RowDecoderStatistics()
        statistics.warnings = reader.warnings
        return statistics
    }

    /// The most bytes spooled for one image: an uncompressed first page at the pixel limit (at most
    /// 16 bytes a pixel: 16-bit CMYK with alpha and more), plus room for its directory and others.
    static func maximumSpooledBytes(maximumPixelCount: Int) -> Int {
        MemoryEstimator.add(MemoryEstimator.multiply(maximumPixelCount, 16), 64 << 20)
    }
}

/// The row decoder of a TIFF arriving in chunks: the chunks go to a scratch file (never memory),
/// and the file is decoded where it lies once the input ends.
final class TIFFSpoolingRowDecoder: RowDecoder {
    private let sink: any RowSink
    private let options: RowDecodingOptions
    private var file: FileDescriptor?
    private var written = 0
    private var decoded = RowDecoderStatistics()

    init(sink: any RowSink, options: RowDecodingOptions) {
        self.sink = sink
        self.options = options
    }

    deinit {
        stop()
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        let limit = TIFFFormat.maximumSpooledBytes(maximumPixelCount: options.maximumPixelCount)
        guard bytes.count <= limit - written else {
            throw ImageCacheError(
                .dimensionsTooLarge,
                "the TIFF is over \(limit >> 20) MiB, more than an image within the pixel limit of \(options.maximumPixelCount) needs; it was refused"
            )
        }
        let spool = try file ?? options.makeScratchFile()
        file = spool
        try spool.writeAll(bytes, at: written, path: nil)
        written += bytes.count
    }

    func finish() throws {
        guard let spool = file, written > 0 else {
            throw ImageCacheError(.emptyInput, "the input ended without any bytes; there is no image to decode")
        }
        defer { stop() }
        decoded = try TIFFFormat.decodeRows(ofFile: spool, from: 0, size: written, sink: sink, options: options)
    }

    /// Closes the scratch file (unlinked: its blocks go with it).
    func stop() {
        file?.closeQuietly()
        file = nil
    }

    var statistics: RowDecoderStatistics { decoded }
}
#endif
