import FICCore
import ImageCodec

/// Decodes a PNG row by row while its bytes arrive: ImageCodec's ``PNGRowDecoder`` runs on a
/// decoder thread and reads through a ``ByteChannel``, which hands it whatever has arrived and
/// makes it wait only when nothing has. Only the decoder's row and the sink's batches are in
/// memory, whatever the image size; an Adam7-interlaced PNG, whose rows are final only after the
/// last pass, has its stored samples gathered by the decoder first (checked against
/// ``maximumInterlacedSampleBytes`` before decoding starts).
final class PNGRowSource: RowSource {
    /// The most bytes of stored samples an interlaced PNG may need.
    static let maximumInterlacedSampleBytes = 512 << 20

    private struct Outcome {
        var failure: ImageCacheError?
        var completed = false
    }

    private let channel = ByteChannel()
    private let outcome = LockedBox(Outcome())
    private let thread: WorkerThread

    /// Starts the decoder thread, which hands the header and the rows to `sink`. The caller does
    /// not use `sink` again until ``finish()`` or ``stop()`` has returned.
    init(sink: RowSink, options: PNGRowDecoder.Options) throws {
        let channel = self.channel, outcome = self.outcome
        let handed = HandedOver(value: sink)
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
    private static func decode(from channel: ByteChannel, into sink: RowSink, options: PNGRowDecoder.Options) throws {
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

/// Keeps every byte and decodes the image whole when the input ends: WebP (at most 16383 × 16383).
final class WholeImageSource: RowSource {
    private var bytes: [UInt8] = []
    private let sink: RowSink
    private let maximumPixelCount: Int
    private let allowCorruptData: Bool
    /// The most input kept in memory.
    static let maximumInputBytes = 512 << 20

    init(sink: RowSink, maximumPixelCount: Int, allowCorruptData: Bool) {
        self.sink = sink
        self.maximumPixelCount = maximumPixelCount
        self.allowCorruptData = allowCorruptData
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        guard bytes.count + chunk.count <= Self.maximumInputBytes else {
            throw ImageCacheError(.overMemoryBudget, "the image is over \(Self.maximumInputBytes >> 20) MiB; WebP images are decoded whole and cannot be that large")
        }
        bytes.append(contentsOf: chunk)
    }

    /// Nothing runs on another thread.
    func stop() {}

    func finish() throws {
        let image: DecodedImage
        do {
            image = try ImageDecoder.decode(bytes, options: DecodingOptions(
                maximumPixelCount: maximumPixelCount, applyOrientation: false, allowCorruptData: allowCorruptData))
        } catch let error as ImageCacheError {
            throw error
        } catch {
            throw ImageCacheError(.decodingFailed, "the image could not be decoded", underlying: error)
        }
        bytes = []
        let info = image.source
        try sink.begin(SourceHeader(format: info.format, width: image.width, height: image.height, orientation: info.orientation, hasAlpha: image.pixelFormat == .bgra32Premultiplied))
        var row = 0
        try typed { try image.withUnsafeBytes { raw in
            while row < image.height {
                let batch = try sink.acquireBatch()
                let n = min(batch.capacity, image.height - row)
                for i in 0..<n {
                    batch.row(i).copyMemory(from: raw.baseAddress! + (row + i) * image.bytesPerRow, byteCount: image.width * 4)
                }
                batch.count = n
                row += n
                try sink.submit(batch)
            }
        } }
    }
}
