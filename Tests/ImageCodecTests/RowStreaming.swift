import FICCore
import Foundation
@testable import ImageCodec
import Testing

/// Streams bytes through a format's row decoder — the one tile pyramids run — in chunks, and
/// keeps the rows it hands out.
enum RowStreaming {
    /// What a streamed decode handed out.
    struct Result {
        /// The header the decoder gave the sink.
        var header: SourceHeader
        /// Every row, packed (`width × 4` bytes each), in the order they arrived.
        var pixels: [UInt8]
        /// What the decoder kept outside memory.
        var statistics: RowDecoderStatistics
    }

    /// Options for tests: a pixel limit, strict unless asked, scratch files in the temporary folder.
    static func options(maximumPixelCount: Int = 100_000_000, allowCorruptData: Bool = false, coefficientMemoryBudget: Int = 64 << 20)
        -> RowDecodingOptions
    {
        var options = RowDecodingOptions(maximumPixelCount: maximumPixelCount, allowCorruptData: allowCorruptData) {
            try Directory.open(NSTemporaryDirectory(), create: false, followLinks: true).makeTemporaryFile(for: "row-decoder-scratch")
                .takeDescriptor()
        }
        options.coefficientMemoryBudget = coefficientMemoryBudget
        return options
    }

    /// Sniffs `bytes`, then feeds them to the format's row decoder `chunkSize` bytes at a time;
    /// `afterChunk` learns how many rows had arrived after each chunk.
    static func decode(_ bytes: [UInt8], chunkSize: Int, options: RowDecodingOptions = options(), afterChunk: (Int) -> Void = { _ in })
        throws -> Result
    {
        let sink = CollectingSink()
        var decoder: (any RowDecoder)?
        var start = 0
        do {
            while start < bytes.count {
                let end = min(bytes.count, start + chunkSize)
                if let decoder {
                    try bytes[start..<end].withUnsafeBytes { try decoder.append($0) }
                } else if let (format, offset) = try bytes[0..<end].withUnsafeBytes({ try ImageFormats.sniff($0, final: false) }) {
                    let made = try format.makeRowDecoder(sink: sink, options: options)
                    decoder = made
                    try bytes[offset..<end].withUnsafeBytes { try made.append($0) }
                }
                afterChunk(sink.rowCount)
                start = end
            }
            if decoder == nil {
                guard let (format, offset) = try bytes.withUnsafeBytes({ try ImageFormats.sniff($0, final: true) }) else {
                    throw ImageCacheError(.emptyInput, "no bytes")
                }
                decoder = try format.makeRowDecoder(sink: sink, options: options)
                try bytes[offset...].withUnsafeBytes { try decoder!.append($0) }
            }
            try decoder!.finish()
        } catch {
            decoder?.stop()
            throw error
        }
        let header = try #require(sink.header, "the decoder finished without a header")
        #expect(sink.rowCount == header.height, "every row arrived")
        return Result(header: header, pixels: sink.pixels, statistics: decoder!.statistics)
    }
}

/// A sink that keeps every row, packed; safe to call from the PNG decoder's own thread.
final class CollectingSink: RowSink, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [UInt8] = []
    private var rows = 0
    private var begun: SourceHeader?
    /// Thrown from ``submit(_:)`` when set, to check that a sink's failure stops the decoder.
    var failure: (any Error)?

    var header: SourceHeader? { lock.withLock { begun } }
    var pixels: [UInt8] { lock.withLock { collected } }
    var rowCount: Int { lock.withLock { rows } }

    func begin(_ header: SourceHeader) throws {
        lock.withLock { begun = header }
    }

    func acquireBatch() throws -> RowBatch {
        let width = lock.withLock { begun?.width ?? 0 }
        return try RowBatch(capacity: 16, bytesPerRow: width * 4)
    }

    func submit(_ batch: RowBatch) throws {
        if let failure { throw failure }
        lock.withLock {
            for row in 0..<batch.count {
                collected.append(contentsOf: UnsafeRawBufferPointer(start: batch.row(row), count: batch.bytesPerRow))
            }
            rows += batch.count
        }
    }
}
