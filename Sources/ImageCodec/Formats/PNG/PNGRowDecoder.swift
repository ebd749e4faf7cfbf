/// Decodes a PNG row by row, handing each row to the caller as soon as it is inflated: memory
/// stays proportional to one row, whatever the image size, and no full-size bitmap is ever made.
///
/// Rows are 32-bit pixels in stored orientation (see ``ImageInfo/orientation``):
/// ``PixelFormat/bgra32Premultiplied`` when the image has alpha (an alpha channel, or `tRNS`
/// transparency, honoured at every bit depth), else ``PixelFormat/bgrx32`` with X = 255. 16-bit
/// samples are reduced to 8 bits with rounding. The bytes come from a file (streamed, never read
/// whole), from memory, or from any reader the caller supplies; a reader may block, for example
/// while a download delivers the next chunk, so decoding can run on a thread of its own while the
/// bytes arrive.
///
/// Adam7-interlaced PNGs are the one exception to row-sized memory: a row is complete only after
/// the last of the seven passes, so their stored samples (at their own bit depth) are gathered in
/// one image-sized buffer before the first row is handed out.
///
/// The header is read when the decoder is created; ``decodeRows(_:)`` then decodes every row once.
/// An instance has a single owner and is not thread-safe.
package final class PNGRowDecoder {
    /// Limits for a row-by-row decode.
    package struct Options: Sendable, Hashable {
        /// The largest `width × height` accepted, checked as soon as the header has been read.
        package var maximumPixelCount: Int = 100_000_000
        /// Whether damaged ancillary chunks (bad CRCs) are tolerated, and the chunks after the
        /// image data are left unchecked.
        package var allowCorruptData: Bool = false

        /// Creates options; every parameter has the default described on its property.
        package init(maximumPixelCount: Int = 100_000_000, allowCorruptData: Bool = false) {
            self.maximumPixelCount = maximumPixelCount
            self.allowCorruptData = allowCorruptData
        }
    }

    private let pipeline: PNGRowPipeline
    private let options: Options
    /// Keeps in-memory bytes alive while libspng reads them.
    private let bytes: ImageBytes?
    private var used = false

    /// The header facts: stored size, orientation (from an `eXIf` chunk before the image data),
    /// whether there is alpha.
    package var info: ImageInfo { pipeline.info }
    /// The layout of the rows handed out.
    package var pixelFormat: PixelFormat { info.hasAlpha ? .bgra32Premultiplied : .bgrx32 }
    /// The length in bytes of each row handed out (`width × 4`).
    package var bytesPerRow: Int { info.width * 4 }
    /// Whether the PNG is Adam7-interlaced (and so gathered whole before its first row).
    package var isInterlaced: Bool { pipeline.isInterlaced }

    /// Reads the PNG bytes on demand through `read`, which fills the buffer it is given and
    /// returns how many bytes it wrote, 0 at the end of the data. An error `read` throws stops
    /// decoding and is rethrown (wrapped in an ``ImageCacheError`` if it is not one).
    ///
    /// - Throws: ``ImageCacheError``: the header is damaged, the data is not a PNG, or the image is
    ///   larger than `options.maximumPixelCount`.
    package init(options: Options = Options(), read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        self.options = options
        bytes = nil
        pipeline = try PNGRowPipeline(
            stream: PNGStream(reader: read), maximumPixelCount: options.maximumPixelCount, strict: !options.allowCorruptData
        )
        try checkLimits()
    }

    /// Streams the PNG file at `path` (read in small pieces, never whole). Errors carry `path`.
    package convenience init(contentsOf path: String, options: Options = Options()) throws {
        do {
            try self.init(options: options, read: try PNGStream.fileReader(path: path))
        } catch let error as ImageCacheError {
            throw error.adding(path: path)
        }
    }

    /// Decodes the PNG held in `bytes`, which the decoder keeps alive.
    package init(bytes: ImageBytes, options: Options = Options()) throws {
        self.options = options
        self.bytes = bytes
        pipeline = try bytes.withUnsafeBytes { buffer in
            // ImageBytes never moves its memory, so the buffer outlives this scope.
            try PNGRowPipeline(bytes: buffer, maximumPixelCount: options.maximumPixelCount, strict: !options.allowCorruptData)
        }
        try checkLimits()
    }

    private func checkLimits() throws {
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "PNG")
    }

    /// Decodes every row, top to bottom, calling `body` with the row's index and its
    /// ``bytesPerRow`` bytes (valid only during the call). Errors thrown by `body` stop decoding
    /// and propagate. Can be called once.
    ///
    /// - Throws: ``ImageCacheError`` for damaged or truncated data; ``ImageCacheError/Code/invalidArgument``
    ///   when called a second time.
    package func decodeRows(_ body: (_ row: Int, _ pixels: UnsafeRawBufferPointer) throws -> Void) throws {
        guard !used else {
            throw ImageCacheError(.invalidArgument, "PNGRowDecoder.decodeRows can be called once; make a new decoder to decode again.")
        }
        used = true
        let scratch = try LargeBufferPool.allocate(byteCount: bytesPerRow, zeroed: false)
        let row = scratch.base.assumingMemoryBound(to: UInt32.self)
        let length = bytesPerRow
        try withExtendedLifetime(bytes) {
            try pipeline.decodeRows(
                destination: { _ in row },
                completed: { index, pixels in
                    try body(index, UnsafeRawBufferPointer(start: pixels, count: length))
                })
            if !options.allowCorruptData {
                try pipeline.checkTrailingChunks()
            }
        }
    }
}
