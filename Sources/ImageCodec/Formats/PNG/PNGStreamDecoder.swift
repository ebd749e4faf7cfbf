import FICCore

/// Decodes a PNG row by row while its bytes arrive: a ``PNGRowDecoder`` runs on a decoder thread
/// and reads through a ``ByteChannel``, which hands it whatever has arrived and
/// makes it wait only when nothing has. Only the decoder's row and the sink's batches are in
/// memory, whatever the image size; an Adam7-interlaced PNG, whose rows are final only after the
/// last pass, has its stored samples gathered by the decoder first (checked against
/// ``maximumInterlacedSampleBytes`` before decoding starts).
enum PNGStreamDecoder {
    /// The most bytes of stored samples an interlaced PNG may need.
    static let maximumInterlacedSampleBytes = 512 << 20

    /// A row decoder handing the header and the rows to `sink`, from its decoder thread.
    static func make(sink: any RowSink, options: RowDecodingOptions) throws -> PullingRowDecoder {
        let options = PNGRowDecoder.Options(maximumPixelCount: options.maximumPixelCount, allowCorruptData: options.allowCorruptData)
        return try PullingRowDecoder(
            sink: sink, format: "PNG", endedEarly: "before its last row", prefixLength: 29, checkPrefix: checkHeader
        ) { channel, sink in
            try decode(from: channel, into: sink, options: options)
        }
    }

    /// Checks the header's sizes (bytes 16..<29 of the file) before anything is decoded: an
    /// interlaced PNG must fit ``maximumInterlacedSampleBytes``.
    static func checkHeader(_ prefix: [UInt8]) throws {
        guard prefix.count >= 29, prefix[28] != 0 else { return }
        func u32(_ at: Int) -> Int { Int(prefix[at]) << 24 | Int(prefix[at + 1]) << 16 | Int(prefix[at + 2]) << 8 | Int(prefix[at + 3]) }
        let width = u32(16), height = u32(20), depth = Int(prefix[24])
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(prefix[25])] ?? 4
        let rowBytes = width.multipliedReportingOverflow(by: channels * max(depth, 1))
        let bytes = ((rowBytes.partialValue + 7) / 8).multipliedReportingOverflow(by: height)
        guard !rowBytes.overflow, !bytes.overflow, bytes.partialValue <= maximumInterlacedSampleBytes else {
            throw ImageCacheError(
                .overMemoryBudget,
                "the PNG is interlaced, so its \(width)×\(height) pixels are gathered whole before the first row, which needs more than \(maximumInterlacedSampleBytes >> 20) MiB; save it without interlacing to tile it"
            )
        }
    }

    /// Runs on the decoder thread.
    private static func decode(from channel: ByteChannel, into sink: any RowSink, options: PNGRowDecoder.Options) throws {
        let decoder = try PNGRowDecoder(options: options) { buffer in try channel.read(into: buffer) }
        let info = decoder.info
        try sink.begin(
            SourceHeader(
                format: .png, width: info.width, height: info.height, orientation: info.orientation,
                hasAlpha: decoder.pixelFormat == .bgra32Premultiplied))
        var filler = RowBatchFiller(sink)
        try decoder.decodeRows { _, pixels in
            try filler.nextRow().copyMemory(from: pixels.baseAddress!, byteCount: pixels.count)
            try filler.rowWritten()
        }
        try filler.flush()
    }
}
