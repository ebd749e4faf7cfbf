import CWebP

extension WebPFormat {
    /// An extended WebP (`VP8X`) whose header sets the animation flag.
    package static func mayBeAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count > 20 && bytes[12] == UInt8(ascii: "V") && bytes[13] == UInt8(ascii: "P") && bytes[14] == UInt8(ascii: "8")
            && bytes[15] == UInt8(ascii: "X") && bytes[20] & 0x02 != 0
    }

    /// An animated WebP's frames, as libwebp reads its features; a still WebP as one frame.
    package static func frameSource(_ bytes: ImageBytes, options: DecodingOptions) throws -> any AnimationFrameSource {
        let animated = try bytes.withUnsafeBytes { try features($0).has_animation != 0 }
        return animated ? try WebPAnimation(bytes, options: options) : try StillAnimation(bytes, options: options)
    }
}

/// An animated WebP's frames, composited by libwebp's `WebPAnimDecoder` on the one canvas it
/// keeps (blending, disposal, lossy frames with an alpha plane), straight into premultiplied BGRA.
/// Disposal to background clears to transparent whatever the `ANIM` chunk's background colour
/// says, as browsers do and as libwebp's decoder does. With a ``DecodingOptions/targetSize``
/// smaller than the canvas, the frames are composited at the size that covers it instead
/// (``WebPScaledFrames``): nothing is decoded or composited at full size.
///
/// A file cut inside a frame: libwebp's decoder wants a whole file, so the frames that are
/// complete are decoded from a copy that ends after the last of them (its RIFF size mended), and
/// `.truncated` is thrown once they have been delivered.
final class WebPAnimation: AnimationFrameSource {
    let info: AnimationInfo
    let warnings: [String] = []
    /// The bytes libwebp reads: the file, or the copy of its complete frames.
    private let bytes: ImageBytes
    /// libwebp's animation decoder at full size, or the compositor at a reduced size.
    private let compositor: Compositor
    private let source: ImageInfo
    /// Whether the file was cut short: `.truncated` follows the last frame.
    private let cut: Bool
    private var index = 0

    /// Reads the structure of the animated WebP in `file` and checks the limits.
    init(_ file: ImageBytes, options: DecodingOptions) throws {
        let (complete, durations, loopCount, canvas) = try file.withUnsafeBytes { try Self.structure($0, options: options) }
        try AnimationLimits.check(width: canvas.width, height: canvas.height, frames: durations.count, options: options, format: "WebP")
        if let complete {
            cut = true
            bytes = try file.withUnsafeBytes { whole in
                var copy = [UInt8](UnsafeRawBufferPointer(rebasing: whole[0..<complete]))
                let size = UInt32(complete - 8)
                for i in 0..<4 { copy[4 + i] = UInt8(truncatingIfNeeded: size >> (8 * i)) }
                return try ImageBytes(copying: copy)
            }
        } else {
            cut = false
            bytes = file
        }
        info = AnimationInfo(format: .webp, width: canvas.width, height: canvas.height, loopCount: loopCount, durations: durations)
        source = ImageInfo(format: .webp, width: canvas.width, height: canvas.height, hasAlpha: true, frameCount: durations.count)
        let size = ShrinkingRows.sizes(for: source, target: options.targetSize).output
        if size.width < canvas.width || size.height < canvas.height {
            let scaled = try bytes.withUnsafeBytes {
                // ImageBytes never moves its memory, and `self.bytes` keeps it alive as long as the compositor.
                try WebPScaledFrames($0, frameCount: durations.count, canvas: canvas, size: size)
            }
            compositor = .scaled(scaled, denominator: TargetScale.denominator(for: source, size: size))
            return
        }
        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            throw ImageCacheError(
                .invalidArgument, "libwebp rejected its animation decoder options (ABI mismatch between header and library).")
        }
        decoderOptions.color_mode = MODE_bgrA
        decoderOptions.use_threads = 1
        // ImageBytes never moves its memory, and `self.bytes` keeps it alive as long as the decoder.
        let made = bytes.withUnsafeBytes { buffer in
            var data = WebPData(bytes: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), size: buffer.count)
            return WebPAnimDecoderNew(&data, &decoderOptions)
        }
        guard let made else {
            throw ImageCacheError(
                .corruptData, "The animated WebP is damaged (libwebp's animation decoder refused it). Re-export the image.")
        }
        compositor = .libwebp(AnimDecoder(made))
    }

    /// Who composites the frames.
    private enum Compositor {
        /// libwebp's animation decoder, on a canvas of the file's size.
        case libwebp(AnimDecoder)
        /// Frames scaled while they decode, on a canvas `denominator` times smaller.
        case scaled(WebPScaledFrames, denominator: Int)
    }

    /// Owns a `WebPAnimDecoder`.
    private final class AnimDecoder {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { WebPAnimDecoderDelete(pointer) }
    }

    /// The container's facts from libwebp's demuxer: where the complete frames end when the file
    /// was cut short (nil when it is whole), each complete frame's duration, the loop count and
    /// the canvas.
    private static func structure(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws
        -> (complete: Int?, durations: [Int], loopCount: Int, canvas: (width: Int, height: Int))
    {
        var data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        var state = WEBP_DEMUX_PARSING_HEADER
        guard let demuxer = WebPDemuxPartial(&data, &state), state != WEBP_DEMUX_PARSING_HEADER else {
            if state == WEBP_DEMUX_PARSING_HEADER {
                throw ImageCacheError(
                    .truncated, "The WebP data ends before its header does. The file was cut short; download or copy it again.")
            }
            throw ImageCacheError(
                .corruptData, "The animated WebP's container is damaged (libwebp's demuxer refused it). Re-export the image.")
        }
        defer { WebPDemuxDelete(demuxer) }
        let canvas = (width: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH)), height: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT)))
        let loopCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT))
        let declared = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        try AnimationLimits.checkFrameCount(declared, options: options, format: "WebP")
        var durations: [Int] = []
        var end = 0
        var iterator = WebPIterator()
        if WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 {
            repeat {
                guard iterator.complete != 0, let start = iterator.fragment.bytes else { break }
                durations.append(Int(iterator.duration))
                let after = UnsafeRawPointer(start) - bytes.baseAddress! + iterator.fragment.size
                end = after + (after & 1)  // chunks are padded to an even length
            } while WebPDemuxNextFrame(&iterator) != 0
            WebPDemuxReleaseIterator(&iterator)
        }
        guard state != WEBP_DEMUX_DONE else { return (nil, durations, loopCount, canvas) }
        guard !durations.isEmpty, end <= bytes.count else {
            throw ImageCacheError(
                .truncated, "The animated WebP's data ends inside its first frame. The file was cut short; download or copy it again.")
        }
        return (end, durations, loopCount, canvas)
    }

    func nextFrame() throws -> DecodedImage? {
        try withNextCanvas { try $0.copy() }
    }

    /// Lends the canvas the frame was composited on (libwebp's own, or the reduced one): frames
    /// shrunk on load are read from it without a copy.
    func withNextCanvas<R>(_ body: (LentCanvas) throws -> R) throws -> R? {
        let lent: LentCanvas?
        switch compositor {
        case .scaled(let frames, let denominator):
            lent = try frames.drawNext() ? frames.canvas.lend(source: source, scaleDenominator: denominator) : nil
        case .libwebp(let decoder):
            guard WebPAnimDecoderHasMoreFrames(decoder.pointer) != 0 else {
                lent = nil
                break
            }
            var pixels: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder.pointer, &pixels, &timestamp) != 0, let pixels else {
                throw ImageCacheError(
                    .corruptData, "The animated WebP's frame \(index + 1) is corrupt (libwebp: bitstream error). Re-export the image.")
            }
            lent = LentCanvas(
                base: UnsafeRawPointer(pixels), bytesPerRow: info.width * 4, width: info.width, height: info.height,
                pixelFormat: .bgra32Premultiplied, source: source)
        }
        guard let lent else {
            if cut {
                throw ImageCacheError(
                    .truncated,
                    "The animated WebP's data ends inside frame \(index + 1); the \(index) frames before it were decoded. The file was cut short; download or copy it again."
                )
            }
            return nil
        }
        index += 1
        return try body(lent)
    }
}
