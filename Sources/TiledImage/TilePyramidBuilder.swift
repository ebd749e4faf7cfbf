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
/// let builder = try TilePyramidBuilder(destination: .folder("/var/cache/tiles/nebula"))
/// for try await chunk in body { try builder.append(chunk) }
/// let pyramid = try builder.finish()
/// ```
///
/// JPEG (baseline streams row by row; progressive keeps its coefficients in a file beyond a
/// budget), non-interlaced PNG (row by row) and WebP (decoded whole, at most 16383 × 16383).
/// Any failure leaves no pyramid behind, and the builder then rethrows that first error.
/// Thread-safe; calls are serialised.
public final class TilePyramidBuilder: @unchecked Sendable {
    private enum Phase {
        case open
        case finished
        case failed(ImageCacheError)
    }

    private let lock = Lock()
    private let options: TilePyramidOptions
    private var phase = Phase.open
    private var assembler: PyramidAssembler?
    private var source: RowSource?
    private var prefix: [UInt8] = []
    private var received = 0
    private var firstByte: ContinuousClock.Instant?
    private var lastChunk: ContinuousClock.Instant?
    private let activity = LockedBox(ContinuousClock.now)
    private static let logger = Logger(label: "TiledImage.builder")

    /// Prepares a build into `destination`. For a folder, any pyramid already there is removed
    /// now (the folder must not be open elsewhere: `.inUse`).
    public init(destination: TilePyramidDestination, options: TilePyramidOptions = .init()) throws {
        self.options = options
        assembler = try PyramidAssembler(destination: destination, options: options)
    }

    deinit {
        if case .open = phase { assembler?.abandon() }
    }

    /// Bytes received so far.
    public var receivedByteCount: Int { lock.withLock { received } }

    /// When the last chunk arrived (or the builder was made), for stall detection.
    var lastActivity: ContinuousClock.Instant { activity.withLockedValue { $0 } }

    /// Feeds the next chunk of the image.
    public func append(_ chunk: some ContiguousBytes) throws {
        let now = ContinuousClock.now
        activity.withLockedValue { $0 = now }
        try lock.withLock { () throws in
            try checkOpen()
            do throws {
                if firstByte == nil { firstByte = now }
                lastChunk = now
                try withBytes(chunk) { (raw) throws in
                    received += raw.count
                    try feed(raw)
                }
            } catch {
                fail(ImageCacheError.adopting(error))
                throw error
            }
        }
    }

    /// Declares the end of the input and returns the finished pyramid.
    ///
    /// - Throws: `.truncated` when the image is incomplete, and any decoding or disk error.
    public func finish() throws -> TilePyramid {
        try lock.withLock { () throws -> TilePyramid in
            try checkOpen()
            do throws {
                if source == nil {
                    guard !prefix.isEmpty else { throw ImageCacheError(.emptyInput, "the input ended without any bytes; there is no image to tile") }
                    try chooseSource(final: true)
                }
                try source?.finish()
                guard let assembler else { throw ImageCacheError(.closed, "the builder was cancelled") }
                let clock = ContinuousClock.now
                let first = firstByte ?? clock, last = lastChunk ?? clock
                let received = received
                let pyramid = try assembler.complete(sourceBytes: received) {
                    let ready = ContinuousClock.now
                    return TilePyramidBuildStatistics(
                        inputBytes: received, totalDuration: ready - first, afterLastByte: ready - last,
                        coefficientFileBytes: (self.source as? JPEGRowSource)?.coefficientFileBytes ?? 0)
                }
                phase = .finished
                source = nil
                self.assembler = nil
                return pyramid
            } catch {
                fail(ImageCacheError.adopting(error))
                throw error
            }
        }
    }

    /// Stops the build and removes what was written. Later calls throw `.cancelled`.
    public func cancel() {
        lock.withLock {
            if case .open = phase { fail(ImageCacheError(.cancelled, "the pyramid build was cancelled")) }
        }
    }

    /// Fails the build with `error` (from the async helpers).
    func abandon(_ error: ImageCacheError) {
        lock.withLock {
            if case .open = phase { fail(error) }
        }
    }

    private func checkOpen() throws {
        switch phase {
        case .open: return
        case .finished: throw ImageCacheError(.closed, "the pyramid was already finished")
        case .failed(let error): throw error
        }
    }

    private func fail(_ error: ImageCacheError) {
        phase = .failed(error)
        source = nil
        assembler?.abandon()
        assembler = nil
        Self.logger.debug("tile pyramid build failed: \(error)")
    }

    private func withBytes(_ chunk: some ContiguousBytes, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        do {
            try chunk.withUnsafeBytes { raw in try body(raw) }
        } catch let error as ImageCacheError {
            throw error
        } catch {
            throw ImageCacheError(.interrupted, "reading the input failed", underlying: error)
        }
    }

    private func feed(_ raw: UnsafeRawBufferPointer) throws {
        if let source {
            try source.append(raw)
            return
        }
        prefix.append(contentsOf: raw)
        try chooseSource(final: false)
    }

    /// Picks the decoder from the first bytes (JPEG 3, PNG 29: up to the interlace flag, WebP 12).
    private func chooseSource(final: Bool) throws {
        guard let assembler else { throw ImageCacheError(.closed, "the builder was cancelled") }
        let isJPEG = prefix.count >= 3 && prefix[0] == 0xFF && prefix[1] == 0xD8 && prefix[2] == 0xFF
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let isPNG = prefix.count >= 8 && Array(prefix[0..<8]) == pngSignature
        let isWebP = prefix.count >= 12 && Array(prefix[0..<4]) == Array("RIFF".utf8) && Array(prefix[8..<12]) == Array("WEBP".utf8)
        let made: RowSource
        if isJPEG {
            let options = self.options
            made = try JPEGRowSource(sink: assembler, limits: .init(
                maximumPixelCount: options.maximumPixelCount, allowCorruptData: options.allowCorruptData,
                coefficientMemoryBudget: options.coefficientMemoryBudget, residentCoefficientLimit: options.residentCoefficientLimit,
                makeCoefficientFile: { () throws -> FileDescriptor in try assembler.makeUnnamedFile("coefficients") }))
        } else if isPNG && prefix.count >= 29 && prefix[28] == 0 {
            made = try PNGRowSource(sink: assembler, maximumPixelCount: options.maximumPixelCount, allowCorruptData: options.allowCorruptData)
        } else if isWebP || (isPNG && (prefix.count >= 29 || final)) {
            made = WholeImageSource(sink: assembler, maximumPixelCount: options.maximumPixelCount, allowCorruptData: options.allowCorruptData)
        } else if final || prefix.count >= 32 {
            do {
                _ = try ImageDecoder.info(prefix)
            } catch let error as ImageCacheError {
                throw error
            } catch {
                throw ImageCacheError(.unsupportedFormat, "the input is not an image that can be tiled", underlying: error)
            }
            throw ImageCacheError(.unsupportedFormat, "the input is not a JPEG, PNG or WebP image; only those can be tiled")
        } else {
            return  // wait for more bytes
        }
        source = made
        let bytes = prefix
        prefix = []
        try typed { try bytes.withUnsafeBytes { raw in try made.append(raw) } }
    }
}
