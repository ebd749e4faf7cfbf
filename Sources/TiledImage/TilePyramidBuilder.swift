#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif
import FICCore
import ImageCodec
import Logging
import SystemPackage

/// Builds a tile pyramid from an image whose bytes arrive in chunks (a download, a file):
/// rows are decoded and written into every level as the bytes arrive, so the pyramid is ready
/// moments after the last byte, and no full-size bitmap ever exists.
///
/// ```swift
/// let builder = try TilePyramidBuilder(destination: .tiff("/var/cache/tiles/nebula.tif"))
/// for try await chunk in body { try builder.append(chunk) }
/// let pyramid = try builder.finish()
/// ```
///
/// JPEG (baseline streams row by row; progressive keeps its coefficients in a file beyond a
/// budget), PNG (row by row; interlaced ones gather their samples first) and WebP (decoded whole,
/// at most 16383 × 16383).
/// Any failure leaves no pyramid behind, and the builder then rethrows that first error.
/// Thread-safe; calls are serialised.
public final class TilePyramidBuilder: Sendable {
    /// The options it was made with.
    let options: TilePyramidOptions
    private let state: LockedBox<BuildState>
    private let activity = LockedBox(ContinuousClock.now)
    /// What has been written so far, readable without the build's lock.
    let progress = BuildProgress()

    /// Prepares a build into `destination` (a TIFF's folder must exist). A failed build is
    /// logged to `logger` at debug level (the error itself is thrown to the caller).
    public init(
        destination: TilePyramidDestination, options: TilePyramidOptions = .init(),
        logger: Logger = Logger(label: "TiledImage.builder")
    ) throws {
        self.options = options
        state = LockedBox(
            BuildState(assembler: try PyramidAssembler(destination: destination, options: options, progress: progress), logger: logger))
    }

    deinit {
        state.withLockedValue { state in
            if case .open = state.phase { state.stop() }
        }
    }

    /// Bytes received so far.
    public var receivedByteCount: Int { state.withLockedValue { $0.received } }

    /// Has `body` called with a TIFF destination's file as soon as it has its name, before
    /// ``finish()`` opens the pyramid on it; an error `body` throws fails the build (the file
    /// keeps its name).
    package func whenCommitted(_ body: @escaping @Sendable (PyramidTIFFFileSource) throws -> Void) {
        state.withLockedValue { $0.assembler?.committed = body }
    }

    /// Tiles compressed into a TIFF destination so far.
    package var storedTileCount: Int { progress.storedTiles }

    /// When the last chunk arrived (or the builder was made), for stall detection.
    var lastActivity: ContinuousClock.Instant { activity.withLockedValue { $0 } }

    /// Feeds the next chunk of the image.
    public func append(_ chunk: some ContiguousBytes) throws {
        let now = ContinuousClock.now
        activity.withLockedValue { $0 = now }
        let options = self.options
        try state.withLockedValue { (state) throws in
            try state.checkOpen()
            do throws {
                if state.firstByte == nil { state.firstByte = now }
                state.lastChunk = now
                try Self.withBytes(chunk) { (raw) throws in
                    state.received += raw.count
                    try state.feed(raw, options: options)
                }
            } catch {
                state.fail(ImageCacheError.adopting(error))
                throw error
            }
        }
    }

    /// Declares the end of the input and returns the finished pyramid.
    ///
    /// - Throws: `.truncated` when the image is incomplete, and any decoding or disk error.
    public func finish() throws -> TilePyramid {
        let options = self.options
        // Recoverable damage decoded past, logged once the lock is released.
        var damage: (warnings: [String], logger: Logger)?
        defer {
            if let damage {
                for warning in damage.warnings { damage.logger.warning("Decoded past recoverable damage: \(warning)") }
            }
        }
        return try state.withLockedValue { (state) throws -> TilePyramid in
            try state.checkOpen()
            do throws {
                if state.source == nil && state.decodedFile == nil {
                    guard !state.prefix.isEmpty else {
                        throw ImageCacheError(.emptyInput, "the input ended without any bytes; there is no image to tile")
                    }
                    try state.chooseSource(final: true, options: options)
                }
                try state.source?.finish()
                guard let assembler = state.assembler else { throw ImageCacheError(.closed, "the builder was cancelled") }
                let clock = ContinuousClock.now
                let first = state.firstByte ?? clock, last = state.lastChunk ?? clock
                let received = state.received
                let decoded = state.source?.statistics ?? state.decodedFile ?? RowDecoderStatistics()
                damage = (decoded.warnings, state.logger)
                let pyramid = try assembler.complete(sourceBytes: received) {
                    let ready = ContinuousClock.now
                    return TilePyramidBuildStatistics(
                        inputBytes: received, totalDuration: ready - first, afterLastByte: ready - last,
                        coefficientFileBytes: decoded.coefficientFileBytes, coefficientPagerPeakBytes: decoded.coefficientPagerPeakBytes,
                        coefficientBytesFreedEarly: decoded.coefficientBytesFreedEarly)
                }
                state.phase = .finished
                state.source = nil
                state.assembler = nil
                return pyramid
            } catch {
                state.fail(ImageCacheError.adopting(error))
                throw error
            }
        }
    }

    /// Stops the build and removes what was written. Later calls throw `.cancelled`.
    public func cancel() {
        // Seen by the decoder at its next batch, also while a whole file is decoded under the lock.
        progress.fail(ImageCacheError(.cancelled, "the pyramid build was cancelled"))
        state.withLockedValue { state in
            if case .open = state.phase { state.fail(ImageCacheError(.cancelled, "the pyramid build was cancelled")) }
        }
    }

    /// Fails the build with `error` (from the async helpers).
    func abandon(_ error: ImageCacheError) {
        state.withLockedValue { state in
            if case .open = state.phase { state.fail(error) }
        }
    }

    /// Decodes the whole file `file` (`size` bytes, the image's data from `offset`) with
    /// `decoder`, which reads it where it lies, instead of appending its bytes; then ``finish()``.
    func decode(file: FileDescriptor, size: Int, decoder: any ImageFormatDecoder.Type, offset: Int) throws {
        let options = self.options
        let now = ContinuousClock.now
        activity.withLockedValue { $0 = now }
        try state.withLockedValue { (state) throws in
            try state.checkOpen()
            guard state.source == nil, state.decodedFile == nil, state.received == 0, let assembler = state.assembler else {
                throw ImageCacheError(.invalidArgument, "the builder already has input; a file is decoded into a fresh builder")
            }
            state.firstByte = now
            state.lastChunk = now  // every byte is there from the start
            state.received = size
            do throws {
                state.decodedFile = try decoder.decodeRows(
                    ofFile: file, from: offset, size: size, sink: assembler, options: BuildState.rowOptions(options, assembler: assembler))
            } catch {
                state.fail(ImageCacheError.adopting(error))
                throw error
            }
        }
    }

    private static func withBytes(_ chunk: some ContiguousBytes, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        do {
            try chunk.withUnsafeBytes { raw in try body(raw) }
        } catch let error as ImageCacheError {
            throw error
        } catch {
            throw ImageCacheError(.interrupted, "reading the input failed", underlying: error)
        }
    }
}

/// Everything a build changes, reached only under the builder's lock.
///
/// `@unchecked Sendable` because the decoder and the assembler (C libraries' state, and the sink
/// the decoder writes to) are not, and cannot cheaply be: they are driven by one thread at a
/// time, the one holding the builder's ``LockedBox``, and no method hands them out of it. The one
/// other thread, a decoder's own (``PullingRowDecoder``), uses the assembler only until the
/// decoder's `stop()` or `finish()` has joined it, and both run under the lock.
private struct BuildState: @unchecked Sendable {
    enum Phase {
        case open
        case finished
        case failed(ImageCacheError)
    }

    var phase = Phase.open
    var assembler: PyramidAssembler?
    /// The caller's logger.
    let logger: Logger
    var source: (any RowDecoder)?
    /// What the decoder of a whole file kept outside memory, once it has decoded it.
    var decodedFile: RowDecoderStatistics?
    /// The first bytes, kept until the format is known.
    var prefix: [UInt8] = []
    var received = 0
    var firstByte: ContinuousClock.Instant?
    var lastChunk: ContinuousClock.Instant?

    func checkOpen() throws {
        switch phase {
        case .open: return
        case .finished: throw ImageCacheError(.closed, "the pyramid was already finished")
        case .failed(let error): throw error
        }
    }

    /// Stops the decoder (its thread, if any, first: it may be using the assembler), then removes
    /// what was written.
    mutating func stop() {
        source?.stop()
        source = nil
        assembler?.progress.fail(ImageCacheError(.cancelled, "the pyramid build was stopped"))
        assembler?.abandon()
        assembler = nil
    }

    mutating func fail(_ error: ImageCacheError) {
        phase = .failed(error)
        assembler?.progress.fail(error)
        stop()
        logger.debug("tile pyramid build failed: \(error)")
    }

    mutating func feed(_ raw: UnsafeRawBufferPointer, options: TilePyramidOptions) throws {
        if let source {
            try source.append(raw)
            return
        }
        prefix.append(contentsOf: raw)
        try chooseSource(final: false, options: options)
    }

    /// What a row decoder gets from the build's options; scratch files go next to the pyramid.
    static func rowOptions(_ options: TilePyramidOptions, assembler: PyramidAssembler) -> RowDecodingOptions {
        var rowOptions = RowDecodingOptions(
            maximumPixelCount: options.maximumPixelCount, allowCorruptData: options.allowCorruptData,
            makeScratchFile: { () throws -> FileDescriptor in try assembler.makeUnnamedFile("scratch") })
        rowOptions.coefficientMemoryBudget = options.coefficientMemoryBudget
        rowOptions.residentCoefficientLimit = options.residentCoefficientLimit
        rowOptions.pagesCoefficientsInBackground = options.pagesCoefficientsInBackground
        return rowOptions
    }

    /// Picks the decoder from the first bytes, once they tell the format (every format's decoder
    /// is asked: ``ImageFormats``), and hands it what came so far.
    mutating func chooseSource(final: Bool, options: TilePyramidOptions) throws {
        guard let assembler else { throw ImageCacheError(.closed, "the builder was cancelled") }
        let found = try prefix.withUnsafeBytes { try ImageFormats.sniff($0, final: final) }
        guard let (decoder, offset) = found else { return }  // wait for more bytes
        let made = try decoder.makeRowDecoder(sink: assembler, options: Self.rowOptions(options, assembler: assembler))
        if offset > 0 { prefix.removeFirst(offset) }  // junk before a JPEG
        source = made
        let bytes = prefix
        prefix = []
        try typed { try bytes.withUnsafeBytes { raw in try made.append(raw) } }
    }
}
