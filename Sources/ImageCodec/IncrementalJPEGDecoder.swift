#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif

/// Decodes a JPEG as its bytes arrive, handing out rows as soon as they are decoded.
///
/// Feed chunks of any size with ``append(_:rows:)``; call ``finish()`` once the stream has ended.
/// Rows are BGRX (4 bytes per pixel, X = 255) in stored orientation (see ``ImageInfo/orientation``),
/// at full size. For baseline JPEGs memory stays proportional to one row strip, whatever the image
/// size; progressive and multi-scan JPEGs need the whole coefficient array, which must fit in
/// ``Options-swift.struct/progressiveMemoryBudget``. libjpeg cannot suspend inside arithmetic-coded
/// scans, so arithmetic-coded JPEGs (rare) are buffered whole and their rows arrive with the chunk
/// holding the end-of-image marker.
///
/// An instance has a single owner and is not thread-safe.
public final class IncrementalJPEGDecoder {
    /// Limits for an incremental decode.
    public struct Options: Sendable, Hashable {
        /// The largest `width × height` accepted, checked as soon as the header has been read.
        public var maximumPixelCount: Int = 100_000_000
        /// The most memory progressive (and other multi-scan) JPEGs may use for their coefficients:
        /// the sum over components of `width_in_blocks × height_in_blocks × 128` bytes.
        public var progressiveMemoryBudget: Int = 512 << 20
        /// Whether libjpeg warnings (corrupt data, extraneous bytes) are tolerated instead of errors.
        public var allowCorruptData: Bool = false

        /// Creates options; every parameter has the default described on its property.
        public init(maximumPixelCount: Int = 100_000_000, progressiveMemoryBudget: Int = 512 << 20, allowCorruptData: Bool = false) {
            self.maximumPixelCount = maximumPixelCount
            self.progressiveMemoryBudget = progressiveMemoryBudget
            self.allowCorruptData = allowCorruptData
        }
    }

    private enum Stage {
        case header, start, rows, end, complete
    }

    private static let stripRows = 16

    private let options: Options
    private var decompressor: JPEGDecompressor?
    private var stage = Stage.header
    private var failure: (any Error)?
    private var bytesReceived = 0
    private var prefix: [UInt8] = []
    /// The rows handed out, in memory from ``LargeBufferPool`` (mapped pages for wide images).
    private var strip: LargeBufferPool.Storage?
    /// For arithmetic-coded streams, which libjpeg cannot decode with suspension: finds their end.
    private var endScanner: JPEGEndScanner?
    private var endOfInputDeclared = false

    /// The header facts, set once the header has been read.
    public private(set) var info: ImageInfo?
    /// How many rows have been handed out so far.
    public private(set) var rowsDecoded = 0
    /// Whether every row has been decoded and the end-of-image marker has been read.
    public var isComplete: Bool { stage == .complete }
    /// The length in bytes of each row handed out (`width × 4`; 0 until the header has been read).
    public private(set) var bytesPerRow = 0

    /// Creates a decoder with `options`.
    public init(options: Options = .init()) {
        self.options = options
    }


    /// Feeds the next chunk of the stream and hands out every row it completes.
    ///
    /// `rows` receives the index of the first row, a buffer of `count` contiguous rows each
    /// ``bytesPerRow`` bytes long (valid only during the call), and `count`. Errors thrown by `rows`
    /// propagate and stop the decoder, as do decoding errors; later calls rethrow the first error.
    public func append(_ bytes: some ContiguousBytes, rows: (Int, UnsafeRawBufferPointer, Int) throws -> Void) throws {
        if let failure { throw failure }
        do {
            try bytes.withUnsafeBytes { buffer in
                try accept(buffer)
            }
            try drive(rows: rows)
        } catch {
            failure = error
            throw error
        }
    }

    /// Declares the end of the stream. Throws ``ImageCacheError/Code/truncated`` unless
    /// every row has been decoded (and, unless corrupt data is allowed, the end-of-image marker read).
    public func finish() throws {
        if let failure { throw failure }
        if stage == .complete { return }
        do {
            try finishStream()
        } catch {
            failure = error
            throw error
        }
    }

    private func finishStream() throws {
        guard bytesReceived > 0 else {
            throw ImageCacheError(.emptyInput, "The JPEG stream ended without any bytes; there is no image to decode.")
        }
        guard let decompressor, stage == .end else {
            let what = info.map { "after \(rowsDecoded) of \($0.height) rows" } ?? "before its header was complete"
            throw ImageCacheError(.truncated,
                "The JPEG stream ended \(what) (\(bytesReceived) bytes received). The file was cut short; download or copy it again."
            )
        }
        decompressor.setEndOfInput()
        endOfInputDeclared = true
        guard try decompressor.finish() == .done else {
            throw ImageCacheError(.truncated, "The JPEG stream ended before its end-of-image marker.")
        }
        stage = .complete
    }

    /// Checks the signature, then passes the bytes to libjpeg.
    private func accept(_ buffer: UnsafeRawBufferPointer) throws {
        guard !buffer.isEmpty else { return }
        bytesReceived += buffer.count
        if prefix.count < 3 {
            prefix.append(contentsOf: buffer.prefix(3 - prefix.count))
            let known = prefix.withUnsafeBytes { FormatSniffer.format(of: $0) }
            if prefix.count == 3 && known != .jpeg {
                let error = prefix.withUnsafeBytes { FormatSniffer.unrecognisedError($0) }
                throw ImageCacheError(.unsupportedFormat, "IncrementalJPEGDecoder only decodes JPEG. \(error.message)")
            }
        }
        if decompressor == nil {
            decompressor = try JPEGDecompressor(strict: !options.allowCorruptData)
        }
        guard !endOfInputDeclared else { return }  // bytes after EOI of an arithmetic-coded stream
        try decompressor?.append(buffer)
        endScanner?.scan(buffer)
    }

    /// Runs libjpeg until it needs more input or the image is done.
    private func drive(rows: (Int, UnsafeRawBufferPointer, Int) throws -> Void) throws {
        guard let decompressor else { return }
        while true {
            switch stage {
            case .header:
                guard let header = try decompressor.readHeader() else { return }
                try accept(header: header)
                let size = try decompressor.configure(scaleDenominator: 1)
                bytesPerRow = size.width * 4
                strip = try LargeBufferPool.allocate(byteCount: bytesPerRow * Self.stripRows, zeroed: false)
                info = header.info
                if header.raw.arithmetic != 0 {
                    var scanner = JPEGEndScanner()
                    scanner.scan(decompressor.bufferedBytes)
                    endScanner = scanner
                }
                stage = .start
            case .start:
                if let endScanner {
                    // Arithmetic decoding cannot suspend: wait for the whole stream, then declare its end.
                    guard endScanner.foundEnd else { return }
                    decompressor.setEndOfInput()
                    endOfInputDeclared = true
                }
                guard try decompressor.start() == .done else { return }
                stage = .rows
            case .rows:
                guard let strip = strip?.base, let info else { return }
                let (count, step) = try decompressor.readRows(into: strip, bytesPerRow: bytesPerRow, maxRows: Self.stripRows)
                if count > 0 {
                    let first = rowsDecoded
                    rowsDecoded += count
                    try rows(first, UnsafeRawBufferPointer(start: strip, count: count * bytesPerRow), count)
                }
                if rowsDecoded >= info.height {
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

    /// Refuses images over the pixel limit, and multi-scan images whose coefficients exceed the budget.
    private func accept(header: JPEGDecompressor.Header) throws {
        try PixelLimits.check(
            width: header.info.width, height: header.info.height,
            maximumPixelCount: options.maximumPixelCount, format: "JPEG"
        )
        let needed = header.raw.coefficient_bytes
        if header.raw.multiple_scans != 0 && needed > UInt64(max(options.progressiveMemoryBudget, 0)) {
            let kind = header.raw.progressive != 0 ? "progressive" : "multi-scan"
            throw ImageCacheError(.overMemoryBudget,
                "This \(kind) JPEG (\(header.info.width)×\(header.info.height)) must hold all its DCT coefficients in memory, \(needed >> 20) MiB (\(needed) bytes), over the budget of \(options.progressiveMemoryBudget) bytes. Re-encode it as a baseline JPEG or raise progressiveMemoryBudget."
            )
        }
    }
}
