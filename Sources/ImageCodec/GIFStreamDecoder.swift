import FICCore

/// Decodes a GIF's first frame row by row while its bytes arrive: giflib pulls its input, so it
/// runs on a decoder thread of its own and reads through a ``ByteChannel``, which hands it what
/// has arrived and makes it wait only when nothing has. Rows go to the sink as they are decoded,
/// except for an interlaced frame, whose palette indices (one byte a pixel) are gathered first.
/// Once the first frame is done, later bytes are dropped unread.
final class GIFStreamDecoder: RowDecoder {
    private struct Outcome {
        var failure: ImageCacheError?
        var completed = false
    }

    private let channel = ByteChannel()
    private let outcome = LockedBox(Outcome())
    private let thread: WorkerThread

    /// Starts the decoder thread, which hands the header and the rows to `sink`. The caller does
    /// not use `sink` again until ``finish()`` or ``stop()`` has returned.
    init(sink: any RowSink, options: RowDecodingOptions) throws {
        let channel = self.channel, outcome = self.outcome
        let handed = HandedOver(value: sink)
        let limits = (pixels: options.maximumPixelCount, strict: !options.allowCorruptData)
        thread = try WorkerThread {
            do throws {
                try Self.decode(from: channel, into: handed.value, maximumPixelCount: limits.pixels, strict: limits.strict)
                outcome.withLockedValue { $0.completed = true }
                channel.stopReading()
            } catch {
                outcome.withLockedValue { $0.failure = ImageCacheError.adopting(error) }
                channel.cancel()
            }
        }
    }

    deinit {
        stop()
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if !channel.push(bytes) {
            thread.join()  // the decoder stopped on its own
            if let failure = outcome.withLockedValue({ $0.failure }) { throw failure }
            throw ImageCacheError(.corruptData, "the GIF decoder stopped early")
        }
    }

    func finish() throws {
        channel.end()
        thread.join()  // the decoder reads what is left, then stops
        let outcome = self.outcome.withLockedValue { $0 }
        if let failure = outcome.failure { throw failure }
        guard outcome.completed else {
            throw ImageCacheError(.truncated, "the GIF ended before its first frame did; the download or file was cut short")
        }
    }

    /// Stops the decoder thread (it fails with `.cancelled` if it was still reading) and waits for it.
    func stop() {
        channel.cancel()
        thread.join()
    }

    /// Runs on the decoder thread.
    private static func decode(from channel: ByteChannel, into sink: any RowSink, maximumPixelCount: Int, strict: Bool) throws {
        let reader = try GIFReader(GIFInput(channel: channel))
        let canvas = GIFCanvas(try reader.readFirstFrame())
        try PixelLimits.check(width: canvas.width, height: canvas.height, maximumPixelCount: maximumPixelCount, format: "GIF")
        try sink.begin(SourceHeader(format: .gif, width: canvas.width, height: canvas.height, orientation: .up, hasAlpha: canvas.hasAlpha))
        var batch: RowBatch?
        _ = try canvas.decodeRows(reader, strict: strict, destination: { _ in
            let current = try batch ?? sink.acquireBatch()
            batch = current
            return current.row(current.count).assumingMemoryBound(to: UInt32.self)
        }, completed: { _, _ in
            guard let current = batch else { return }
            current.count += 1
            if current.count == current.capacity {
                batch = nil
                try sink.submit(current)
            }
        })
        if let batch, batch.count > 0 { try sink.submit(batch) }
    }
}
