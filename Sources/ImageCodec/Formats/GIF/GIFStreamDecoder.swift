import FICCore

#if GIF
/// Decodes a GIF's first frame row by row while its bytes arrive: giflib pulls its input, so it
/// runs on a decoder thread of its own and reads through a ``ByteChannel``, which hands it what
/// has arrived and makes it wait only when nothing has. Rows go to the sink as they are decoded,
/// except for an interlaced frame, whose palette indices (one byte a pixel) are gathered first.
/// Once the first frame is done, later bytes are dropped unread.
enum GIFStreamDecoder {
    /// A row decoder handing the header and the rows to `sink`, from its decoder thread.
    static func make(sink: any RowSink, options: RowDecodingOptions) throws -> PullingRowDecoder {
        let limits = (pixels: options.maximumPixelCount, strict: !options.allowCorruptData)
        return try PullingRowDecoder(sink: sink, format: "GIF", endedEarly: "before its first frame did") { channel, sink in
            try decode(from: channel, into: sink, maximumPixelCount: limits.pixels, strict: limits.strict)
        }
    }

    /// Runs on the decoder thread.
    private static func decode(from channel: ByteChannel, into sink: any RowSink, maximumPixelCount: Int, strict: Bool) throws {
        let reader = try GIFReader(GIFInput(channel: channel))
        let canvas = GIFCanvas(try reader.readFirstFrame())
        try PixelLimits.check(width: canvas.width, height: canvas.height, maximumPixelCount: maximumPixelCount, format: "GIF")
        try sink.begin(SourceHeader(format: .gif, width: canvas.width, height: canvas.height, orientation: .up, hasAlpha: canvas.hasAlpha))
        var filler = RowBatchFiller(sink)
        _ = try canvas.decodeRows(
            reader, strict: strict,
            destination: { _ in
                try filler.nextRow().assumingMemoryBound(to: UInt32.self)
            },
            completed: { _, _ in
                try filler.rowWritten()
            })
        try filler.flush()
    }
}
#endif
