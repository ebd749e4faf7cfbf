#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif
import CWebP

/// Decodes a WebP as its bytes arrive, straight to the size the caller needs: libwebp's
/// incremental decoder scales while it decodes into the output bitmap, so neither a full-size
/// bitmap nor the whole file is ever held (libwebp keeps what it has not decoded yet).
///
/// Feed chunks of any size with ``append(_:)``; ``finish()`` returns the image once the stream has
/// ended. The result is what ``ImageDecoder/decode(_:options:)`` would return for the same bytes
/// and options, with one difference: WebP writers put the EXIF data after the image data, so when
/// the header announces EXIF (and `targetSize` is set) the decode covers the target in either
/// orientation. Animated WebPs are buffered whole and decode to their first frame at ``finish()``.
///
/// An instance has a single owner and is not thread-safe.
public final class IncrementalWebPDecoder {
    private let options: DecodingOptions
    private var head: [UInt8] = []
    private var config: UnsafeMutablePointer<WebPDecoderConfig>?
    private var decoder: OpaquePointer?
    private var image: DecodedImage?
    private var whole: GrowableBytes?
    private var watcher = RIFFEXIFWatcher()
    private var status = VP8_STATUS_SUSPENDED
    private var failure: (any Error)?
    private var finished = false

    /// The header facts, once enough bytes have arrived (the orientation only after ``finish()``).
    public private(set) var info: ImageInfo?

    /// Creates a decoder; `options` are those of ``ImageDecoder/decode(_:options:)``.
    public init(options: DecodingOptions = DecodingOptions()) {
        self.options = options
    }

    deinit {
        if let decoder { WebPIDelete(decoder) }
        if let config {
            WebPFreeDecBuffer(&config.pointee.output)
            config.deallocate()
        }
    }

    /// Feeds the next chunk of the file. Errors stop the decoder; later calls rethrow the first.
    public func append(_ bytes: some ContiguousBytes) throws {
        if let failure { throw failure }
        guard !finished else {
            throw ImageCacheError(.invalidArgument, "IncrementalWebPDecoder.append was called after finish().")
        }
        do {
            try bytes.withUnsafeBytes { try accept($0) }
        } catch {
            failure = error
            throw error
        }
    }

    /// Declares the end of the stream and returns the decoded image.
    ///
    /// - Throws: ``ImageCacheError/Code/truncated`` when the stream ended before the image did, or
    ///   the error that stopped the decoder.
    public func finish() throws -> DecodedImage {
        if let failure { throw failure }
        finished = true
        if let whole {
            return try whole.withUnsafeBytes { try WebPImageDecoder.decode($0, options: options) }
        }
        guard let image, let info else {
            if head.isEmpty { throw ImageCacheError(.emptyInput, "The WebP stream ended without any bytes; there is no image to decode.") }
            // Too short to be recognised: report what the bytes are, as a one-shot decode would.
            return try head.withUnsafeBytes { try ImageDecoder.decode($0, options: options) }
        }
        guard status == VP8_STATUS_OK else {
            throw ImageCacheError(.truncated, "The WebP stream ended before the image did. The file was cut short; download or copy it again.")
        }
        let orientation = watcher.orientation
        let source = ImageInfo(format: .webp, width: info.width, height: info.height, orientation: orientation, hasAlpha: info.hasAlpha)
        self.info = source
        let upright = DecodedImage.rebinding(image, source: source, isOrientationApplied: !options.applyOrientation || orientation == .up)
        guard options.applyOrientation, orientation != .up else { return upright }
        return try OrientationTransform.apply(orientation, to: upright)
    }

    private func accept(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        watcher.watch(bytes)
        if let whole {
            try whole.append(bytes)
            return
        }
        if let decoder {
            status = WebPIAppend(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
            if status != VP8_STATUS_OK && status != VP8_STATUS_SUSPENDED { try WebPImageDecoder.check(status) }
            return
        }
        head.append(contentsOf: bytes)
        guard head.count >= 12 else { return }
        let kind = head.withUnsafeBytes { FormatSniffer.format(of: $0) }
        guard kind == .webp else {
            let error = head.withUnsafeBytes { FormatSniffer.unrecognisedError($0) }
            throw ImageCacheError(.unsupportedFormat, "IncrementalWebPDecoder only decodes WebP. \(error.message)")
        }
        var features = WebPBitstreamFeatures()
        let found = head.withUnsafeBytes {
            WebPGetFeatures($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &features)
        }
        if found == VP8_STATUS_NOT_ENOUGH_DATA {
            guard head.count <= 16 << 20 else {
                throw ImageCacheError(.corruptData, "The WebP's header did not end within 16 MiB. The file is damaged.")
            }
            return
        }
        try WebPImageDecoder.check(found)
        try start(features)
    }

    /// With the header known: sets up the output and libwebp's incremental decoder, and feeds it
    /// what has arrived so far.
    private func start(_ features: WebPBitstreamFeatures) throws {
        let buffered = head
        head = []
        if features.has_animation != 0 {
            let bytes = try GrowableBytes()
            try buffered.withUnsafeBytes { try bytes.append($0) }
            whole = bytes
            return
        }
        let hasEXIF = buffered.count > 20 && buffered[12...15].elementsEqual(Array("VP8X".utf8)) && buffered[20] & 0x08 != 0
        let header = ImageInfo(format: .webp, width: Int(features.width), height: Int(features.height), orientation: .up, hasAlpha: features.has_alpha != 0)
        try PixelLimits.check(width: header.width, height: header.height, maximumPixelCount: options.maximumPixelCount, format: "WebP")
        info = header
        var target = options.targetSize
        if hasEXIF, let t = target {  // either orientation must be covered
            let side = max(t.width, t.height)
            target = PixelSize(width: side, height: side)
        }
        let size = TargetScale.coveringSize(for: header, target: target)
        let image = try DecodedImage(
            allocating: size.width, height: size.height, pixelFormat: header.hasAlpha ? .bgra32Premultiplied : .bgrx32,
            source: header, isOrientationApplied: true,
            scaleDenominator: TargetScale.denominator(for: header, size: size), zeroFilled: false
        )
        let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        config.initialize(to: try WebPImageDecoder.makeConfig(
            for: image, x: 0, y: 0, width: size.width, height: size.height, sourceWidth: header.width, sourceHeight: header.height
        ))
        self.config = config
        self.image = image
        // libwebp keeps a pointer to the configuration, which is why it has an address of its own.
        guard let decoder = WebPIDecode(nil, 0, config) else {
            throw ImageCacheError(.overMemoryBudget, "Could not create libwebp's incremental decoder: out of memory or a bad configuration.")
        }
        self.decoder = decoder
        try buffered.withUnsafeBytes { buffer in
            status = WebPIAppend(decoder, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count)
            if status != VP8_STATUS_OK && status != VP8_STATUS_SUSPENDED { try WebPImageDecoder.check(status) }
        }
    }
}
