import FICCore
import SystemPackage

/// One image format behind the one interface every part of the package decodes through:
/// thumbnails, `fic decode`, the loader's ingest, tile pyramids and the fuzzer all reach a
/// format's decoder here, so they run the same code. Adding a format is one type conforming to
/// this protocol (listed in ``ImageFormats/decoders``) and one system-library target.
///
/// Every requirement takes hostile bytes: a decoder checks sizes against its limits before it
/// allocates, and reports every failure as an ``ImageCacheError`` naming what is wrong.
package protocol ImageFormatDecoder: Sendable {
    /// The format.
    static var format: ImageFileFormat { get }

    /// Every format the decoder reads (formats sharing a container and a library, as HEIF and
    /// AVIF do): ``format`` first.
    static var formats: [ImageFileFormat] { get }

    /// The format of the file whose first bytes (that sniffed as a match) are `prefix`.
    static func format(of prefix: UnsafeRawBufferPointer) -> ImageFileFormat

    /// What the decoder can and cannot do.
    static var capabilities: DecoderCapabilities { get }

    /// Whether the first bytes of a file are of this format, and where its data starts.
    static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult

    /// Reads the header — stored size, orientation, alpha, colour, bit depth, frames — without
    /// decoding pixels. `bytes` may be only the start of the file, as long as it holds the header.
    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo

    /// Decodes the image (its first frame) into a bitmap, at the smallest size covering
    /// `options.targetSize` that the codec's own reduction (DCT scaling, a pyramid level, an
    /// embedded thumbnail) and the package's shrinkers reach without a full-size bitmap where
    /// they can, upright unless asked otherwise.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage

    /// Whether the complete file whose first bytes are `bytes` (that sniffed as this format) may
    /// hold more than one frame, from a look at its header that decodes nothing. A format that
    /// never animates says no: the default.
    static func mayBeAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool

    /// The frames of the complete file in `bytes`, composited one at a time as browsers show them,
    /// for ``AnimatedImageDecoder``. A still image is a source of one frame, decoded by
    /// ``decode(_:options:)``: the default. The structure is read, and the limits of `options`
    /// checked, before this returns.
    static func frameSource(_ bytes: ImageBytes, options: DecodingOptions) throws -> any AnimationFrameSource

    /// What a decode of `bytes` with `options` needs in memory at its peak, from the header alone.
    static func estimatedMemory(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate

    /// A decoder fed the file's bytes as they arrive, which hands rows — top to bottom in stored
    /// orientation, at full size — to `sink`. A format that cannot stream keeps its bytes (within
    /// ``RowDecodingOptions/maximumBufferedBytes``) and decodes them whole at the end: the default.
    static func makeRowDecoder(sink: any RowSink, options: RowDecodingOptions) throws -> any RowDecoder

    /// Decodes a complete file (the bytes of `file` from `offset` to `size`), handing its rows —
    /// top to bottom in stored orientation, at full size — to `sink`, and returns what the decode
    /// kept outside memory. A format whose files must be read in any order (a TIFF's directory is
    /// usually at its end) reads them where they lie, with `pread`; the default reads the file from
    /// start to end in 1 MiB chunks into ``makeRowDecoder(sink:options:)``, as a download would
    /// arrive. The caller owns `file`.
    static func decodeRows(ofFile file: FileDescriptor, from offset: Int, size: Int, sink: any RowSink, options: RowDecodingOptions) throws
        -> RowDecoderStatistics
}

extension ImageFormatDecoder {
    /// The one format.
    package static var formats: [ImageFileFormat] { [format] }

    /// The one format.
    package static func format(of prefix: UnsafeRawBufferPointer) -> ImageFileFormat { format }

    /// A still image: never more than one frame.
    package static func mayBeAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool { false }

    /// The still image as an animation of one frame.
    package static func frameSource(_ bytes: ImageBytes, options: DecodingOptions) throws -> any AnimationFrameSource {
        try StillAnimation(bytes, options: options)
    }

    /// Keeps the bytes and decodes the image whole when they end.
    package static func makeRowDecoder(sink: any RowSink, options: RowDecodingOptions) throws -> any RowDecoder {
        WholeImageRowDecoder(decoder: Self.self, sink: sink, options: options)
    }

    /// Reads the file from `offset` to `size` in 1 MiB chunks into the format's row decoder.
    package static func decodeRows(ofFile file: FileDescriptor, from offset: Int, size: Int, sink: any RowSink, options: RowDecodingOptions)
        throws -> RowDecoderStatistics
    {
        let decoder = try makeRowDecoder(sink: sink, options: options)
        do {
            let chunk = try LargeBufferPool.allocate(byteCount: 1 << 20, zeroed: false)
            var position = offset
            while position < size {
                let count = try file.readAll(
                    into: UnsafeMutableRawBufferPointer(start: chunk.base, count: min(chunk.count, size - position)), at: position,
                    path: nil)
                guard count > 0 else { break }  // the file shrank: the decoder reports what is missing
                try decoder.append(UnsafeRawBufferPointer(start: chunk.base, count: count))
                position += count
            }
            try decoder.finish()
            return decoder.statistics
        } catch {
            decoder.stop()
            throw error
        }
    }
}

/// What a sniff of a file's first bytes found.
package enum SniffResult: Sendable, Hashable {
    /// The bytes are of this format; its data starts `offset` bytes in (0 but for junk before a JPEG).
    case match(offset: Int)
    /// Too few bytes were given to tell.
    case needMoreBytes
    /// Not this format.
    case noMatch
}

/// What a format's decoder can do, for callers choosing a path and for the formats table.
package struct DecoderCapabilities: Sendable, Hashable {
    /// How it reaches a size smaller than the stored one, in the codec itself.
    package var reducedDecode: String
    /// Whether rows stream out as bytes arrive (no full-size bitmap, no whole file in memory).
    package var streamsRows: Bool
    /// The largest width or height it accepts, whatever the pixel limit.
    package var maximumDimension: Int
    /// Whether a file is best decoded where it lies, read in any order
    /// (``ImageFormatDecoder/decodeRows(ofFile:from:size:sink:options:)``), rather than streamed
    /// from its start: its bytes arriving in order are of no use before the last one.
    package var readsFilesInAnyOrder: Bool

    /// Capabilities as given.
    package init(reducedDecode: String, streamsRows: Bool, maximumDimension: Int, readsFilesInAnyOrder: Bool = false) {
        self.reducedDecode = reducedDecode
        self.streamsRows = streamsRows
        self.maximumDimension = maximumDimension
        self.readsFilesInAnyOrder = readsFilesInAnyOrder
    }
}

/// Limits and help a row decoder gets from its caller (a tile pyramid build).
package struct RowDecodingOptions {
    /// The largest `width × height` accepted, checked as soon as the header is read.
    package var maximumPixelCount: Int
    /// Whether damaged data is decoded past (what can be recovered is kept) instead of refused.
    package var allowCorruptData: Bool
    /// Above this, a progressive JPEG's coefficients live in a file instead of memory.
    package var coefficientMemoryBudget: Int = 64 << 20
    /// The most of that file kept resident at once.
    package var residentCoefficientLimit: Int = 64 << 20
    /// Whether a pager thread prepares the coefficient file's pages.
    package var pagesCoefficientsInBackground = true
    /// The most input a format that cannot stream keeps in memory before decoding it whole.
    package var maximumBufferedBytes = 512 << 20
    /// Makes an unlinked file for a decoder's large scratch data (coefficients, spooled input).
    package var makeScratchFile: () throws -> FileDescriptor

    /// Options with the given limits and scratch files.
    package init(maximumPixelCount: Int, allowCorruptData: Bool, makeScratchFile: @escaping () throws -> FileDescriptor) {
        self.maximumPixelCount = maximumPixelCount
        self.allowCorruptData = allowCorruptData
        self.makeScratchFile = makeScratchFile
    }
}
