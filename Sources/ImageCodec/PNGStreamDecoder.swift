import FICCore

/// Decodes a PNG row by row while its bytes arrive: a ``PNGRowDecoder`` runs on a decoder thread
/// and reads through a ``ByteChannel``, which hands it whatever has arrived and
/// makes it wait only when nothing has. Only the decoder's row and the sink's batches are in
/// memory, whatever the image size; an Adam7-interlaced PNG, whose rows are final only after the
/// last pass, has its stored samples gathered by the decoder first (checked against
/// ``maximumInterlacedSampleBytes`` before decoding starts).
final class PNGStreamDecoder: RowDecoder {
    /// The most bytes of stored samples an interlaced PNG may need.
    static let maximumInterlacedSampleBytes = 512 << 20

    private struct Outcome {
        var failure: ImageCacheError?
        var completed = false
    }

    private let channel = ByteChannel()
    private let outcome = LockedBox(Outcome())
    private let thread: WorkerThread
    /// The first bytes, until the header's sizes have been checked.
    private var prefix: [UInt8]? = []

    /// Starts the decoder thread, which hands the header and the rows to `sink`. The caller does
    /// not use `sink` again until ``finish()`` or ``stop()`` has returned.
    init(sink: any RowSink, options: RowDecodingOptions) throws {
        let channel = self.channel, outcome = self.outcome
        let handed = HandedOver(value: sink)
        let options = PNGRowDecoder.Options(maximumPixelCount: options.maximumPixelCount, allowCorruptData: options.allowCorruptData)
        thread = try WorkerThread {
            do throws {
                try Self.decode(from: channel, into: handed.value, options: options)
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
            throw ImageCacheError(.overMemoryBudget, "the PNG is interlaced, so its \(width)×\(height) pixels are gathered whole before the first row, which needs more than \(maximumInterlacedSampleBytes >> 20) MiB; save it without interlacing to tile it")
        }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if var head = prefix {
            head.append(contentsOf: bytes.prefix(29 - head.count))
            prefix = head.count < 29 ? head : nil
            if head.count == 29 { try Self.checkHeader(head) }
        }
        if !channel.push(bytes) {
            thread.join()  // the decoder stopped on its own
            if let failure = outcome.withLockedValue({ $0.failure }) { throw failure }
            throw ImageCacheError(.corruptData, "the PNG decoder stopped early")
        }
    }

    func finish() throws {
        channel.end()
        thread.join()  // the decoder reads what is left, then stops
        let outcome = self.outcome.withLockedValue { $0 }
        if let failure = outcome.failure { throw failure }
        guard outcome.completed else {
            throw ImageCacheError(.truncated, "the PNG ended before its last row; the download or file was cut short")
        }
    }

    /// Stops the decoder thread (it fails with `.cancelled` if it was still reading) and waits for it.
    func stop() {
        channel.cancel()
        thread.join()
    }

    /// Runs on the decoder thread.
    private static func decode(from channel: ByteChannel, into sink: any RowSink, options: PNGRowDecoder.Options) throws {
        let decoder = try PNGRowDecoder(options: options) { buffer in try channel.read(into: buffer) }
        let info = decoder.info
        try sink.begin(SourceHeader(
            format: .png, width: info.width, height: info.height, orientation: info.orientation,
            hasAlpha: decoder.pixelFormat == .bgra32Premultiplied))
        var batch: RowBatch?
        try decoder.decodeRows { _, pixels in
            let current = try batch ?? sink.acquireBatch()
            current.row(current.count).copyMemory(from: pixels.baseAddress!, byteCount: pixels.count)
            current.count += 1
            if current.count == current.capacity {
                batch = nil
                try sink.submit(current)
            } else {
                batch = current
            }
        }
        if let batch, batch.count > 0 { try sink.submit(batch) }
    }
}
