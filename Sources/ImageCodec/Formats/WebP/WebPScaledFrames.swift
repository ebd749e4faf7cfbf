import CWebP

/// An animated WebP's frames composited on a canvas smaller than the file's, as libvips does:
/// libwebp's animation decoder works at full size only, and a frame that is only ever shown small
/// need not be converted, blended and shrunk at full size.
///
/// - A frame whose edges fall on pixel edges of the reduced canvas (every frame that covers the
///   canvas, and any whose offsets are multiples of the scale) is decoded by libwebp's scaler
///   straight to its rectangle: VP8's colour conversion and the alpha plane run at the reduced size.
/// - Any other frame is decoded at its own size into the full-size region of the pixels it
///   touches (transparent around it) and area-averaged down, so that an edge inside a reduced
///   pixel counts for the part of it the frame covers.
///
/// Each is then drawn as its `ANMF` chunk says — over the canvas or replacing what the frame
/// covers, its rectangle cleared once shown when it disposes to the background. The result is
/// compositing at full size then shrinking, but for the rounding of the scalers and, along
/// the edges of frames that do not fill their reduced pixels, the canvas under the frame
/// being taken as even within a pixel.
final class WebPScaledFrames {
    /// The reduced canvas.
    let canvas: AnimationCanvas
    private let demuxer: OpaquePointer
    private let fullSize: (width: Int, height: Int)
    private let frameCount: Int
    /// A frame decoded before it is drawn: at its scaled size, or at full size with the region around it.
    private var decoded: LargeBufferPool.Storage?
    /// A full-size region averaged down.
    private var averaged: LargeBufferPool.Storage?
    /// The scaled rectangle of the frame shown last, when it is to be cleared before the next,
    /// and the share of each of its columns and rows the frame covered (nil: all of it).
    private var clearBeforeNext: (rect: FrameRect, shares: (columns: [Double], rows: [Double])?)?
    private var index = 0

    /// Composites the first `frameCount` frames of the WebP in `bytes` (which the caller keeps
    /// alive and unmoved as long as this object) on a `size` canvas.
    init(_ bytes: UnsafeRawBufferPointer, frameCount: Int, canvas fullSize: (width: Int, height: Int), size: (width: Int, height: Int))
        throws
    {
        var data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demuxer = WebPDemux(&data) else {
            throw ImageCacheError(
                .corruptData, "The animated WebP's container is damaged (libwebp's demuxer refused it). Re-export the image.")
        }
        self.demuxer = demuxer
        self.fullSize = fullSize
        self.frameCount = frameCount
        canvas = try AnimationCanvas(width: size.width, height: size.height)
    }

    deinit {
        WebPDemuxDelete(demuxer)
    }

    /// Draws the next frame on the canvas; false after the last.
    func drawNext() throws -> Bool {
        guard index < frameCount else { return false }
        if let (rect, shares) = clearBeforeNext {
            if let shares {
                cover(rect, with: nil, shares: shares)
            } else {
                canvas.clear(rect)
            }
        }
        clearBeforeNext = nil
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demuxer, Int32(index + 1), &iterator) != 0 else {
            throw ImageCacheError(
                .corruptData, "The animated WebP's frame \(index + 1) cannot be read (libwebp's demuxer). The file is damaged.")
        }
        defer { WebPDemuxReleaseIterator(&iterator) }
        let frame = try WebPFormat.Frame(iterator, canvas: fullSize, number: index + 1)
        let size = (width: canvas.width, height: canvas.height)
        var rect = frame.rect(canvas: fullSize, scaledTo: size)
        var shares: (columns: [Double], rows: [Double])?
        do {
            if !frame.isAligned(canvas: fullSize, scaledTo: size) {
                (rect, shares) = try drawAveraged(frame)
            } else if frame.blends && frame.hasAlpha {
                let pixels = try Self.buffer(&decoded, byteCount: rect.width * rect.height * 4)
                try withExtendedLifetime(pixels) {
                    try decode(frame, into: pixels.base, bytesPerRow: rect.width * 4, width: rect.width, height: rect.height)
                    drawOver(pixels.base.assumingMemoryBound(to: UInt32.self), at: rect)
                }
            } else {
                // Opaque, or not blended: the frame's pixels replace the canvas's.
                try canvas.withPixels(at: rect) {
                    try decode(frame, into: $0, bytesPerRow: canvas.width * 4, width: rect.width, height: rect.height)
                }
            }
        } catch let error as ImageCacheError where error.code != .overMemoryBudget {
            throw ImageCacheError(error.code, "The animated WebP's frame \(index + 1) could not be decoded: \(error.message)")
        }
        if frame.disposesToBackground { clearBeforeNext = (rect, shares) }
        index += 1
        return true
    }

    /// Decodes `frame`, scaled to `width × height` when that is smaller than it, into `start`.
    private func decode(_ frame: WebPFormat.Frame, into start: UnsafeMutableRawPointer, bytesPerRow: Int, width: Int, height: Int) throws {
        try WebPFormat.decodeBitstream(
            frame.bytes, into: start, bytesPerRow: bytesPerRow, premultiplied: true, width: width, height: height,
            sourceWidth: frame.width, sourceHeight: frame.height, threads: true)
    }

    /// Draws `pixels` (`rect.width` a row) over the canvas at `rect`.
    private func drawOver(_ pixels: UnsafePointer<UInt32>, at rect: FrameRect) {
        for y in 0..<rect.height {
            canvas.withRow(rect.y + y) { row in
                let out = row + rect.x, line = pixels + y * rect.width
                for x in 0..<rect.width { out[x] = AnimationCanvas.over(line[x], out[x]) }
            }
        }
    }

    /// Draws a frame whose edges fall inside pixels of the reduced canvas: decoded at its own size
    /// into a full-size region around it (transparent where the frame is not) whose edges fall on
    /// pixel edges of both canvases, then averaged down to that region's rectangle on the reduced
    /// canvas, exactly. Blended, the average is drawn over the canvas; replacing, each pixel keeps
    /// of the canvas the part the frame does not cover. Returns the rectangle drawn and the share
    /// of each of its columns and rows that the frame covers.
    private func drawAveraged(_ frame: WebPFormat.Frame) throws -> (FrameRect, (columns: [Double], rows: [Double])) {
        let (columnsAt, x0, x1) = Self.commonEdges(frame.x..<frame.x + frame.width, full: fullSize.width, reduced: canvas.width)
        let (rowsAt, y0, y1) = Self.commonEdges(frame.y..<frame.y + frame.height, full: fullSize.height, reduced: canvas.height)
        let region = FrameRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let rect = FrameRect(x: columnsAt.lowerBound, y: rowsAt.lowerBound, width: columnsAt.count, height: rowsAt.count)
        let full = try Self.buffer(&decoded, byteCount: region.width * region.height * 4)
        let small = try Self.buffer(&averaged, byteCount: rect.width * rect.height * 4)
        let shares = (
            columns: Self.coverage(of: frame.x..<frame.x + frame.width, in: region.x..<region.x + region.width, pixels: rect.width),
            rows: Self.coverage(of: frame.y..<frame.y + frame.height, in: region.y..<region.y + region.height, pixels: rect.height)
        )
        try withExtendedLifetime((full, small)) {
            full.base.initializeMemory(as: UInt8.self, repeating: 0, count: region.width * region.height * 4)
            try decode(
                frame, into: full.base + ((frame.y - region.y) * region.width + frame.x - region.x) * 4, bytesPerRow: region.width * 4,
                width: frame.width, height: frame.height)
            let source = full.base.assumingMemoryBound(to: UInt32.self), shrunk = small.base.assumingMemoryBound(to: UInt32.self)
            var resampler = AreaResampler(
                sourceWidth: region.width, sourceHeight: region.height, outputWidth: rect.width, outputHeight: rect.height)
            for y in 0..<region.height {
                resampler.add(source + y * region.width) { shrunk + $0 * rect.width }
            }
            if frame.blends {
                // Transparent where the frame is not: drawing the average over the canvas blends
                // the frame over it for the part it covers.
                drawOver(shrunk, at: rect)
            } else {
                cover(rect, with: shrunk, shares: shares)
            }
        }
        return (rect, shares)
    }

    /// The smallest span of reduced pixels whose full-size span (which it must be exactly: both
    /// ends on pixel edges of both canvases) holds `span`, and that full-size span.
    static func commonEdges(_ span: Range<Int>, full: Int, reduced: Int) -> (Range<Int>, Int, Int) {
        var a = full, b = reduced
        while b != 0 { (a, b) = (b, a % b) }
        let fullStep = full / a, reducedStep = reduced / a  // `fullStep` full pixels are `reducedStep` reduced ones
        let first = span.lowerBound / fullStep, last = (span.upperBound + fullStep - 1) / fullStep
        return (first * reducedStep..<last * reducedStep, first * fullStep, last * fullStep)
    }

    /// Replaces, in each pixel of `rect`, the share the frame covers (`shares`: per column and
    /// row) by `pixels` (`rect.width` a row, already weighted by that share), or by transparency.
    private func cover(_ rect: FrameRect, with pixels: UnsafePointer<UInt32>?, shares: (columns: [Double], rows: [Double])) {
        for y in 0..<rect.height {
            canvas.withRow(rect.y + y) { row in
                let out = row + rect.x
                for x in 0..<rect.width {
                    out[x] = Self.replace(out[x], with: pixels?[y * rect.width + x] ?? 0, covering: shares.columns[x] * shares.rows[y])
                }
            }
        }
    }

    /// For each of `pixels` equal parts of `region` (source pixels), the share of it that `span` covers.
    static func coverage(of span: Range<Int>, in region: Range<Int>, pixels: Int) -> [Double] {
        let step = Double(region.count) / Double(pixels)
        return (0..<pixels).map { i in
            let start = Double(region.lowerBound) + Double(i) * step, end = start + step
            return max(0, min(end, Double(span.upperBound)) - max(start, Double(span.lowerBound))) / step
        }
    }

    /// `destination` of which the share `covered` is replaced by `average` (premultiplied, and
    /// already weighted by that share: transparent outside the frame).
    static func replace(_ destination: UInt32, with average: UInt32, covering covered: Double) -> UInt32 {
        guard covered < 1 else { return average }
        return AnimationCanvas.add(average, to: destination, keeping: UInt32((255 * (1 - covered)).rounded()))
    }

    /// `storage`, or a new buffer when it is missing or smaller than `byteCount`.
    private static func buffer(_ storage: inout LargeBufferPool.Storage?, byteCount: Int) throws -> LargeBufferPool.Storage {
        if let storage, storage.count >= byteCount { return storage }
        let made = try LargeBufferPool.allocate(byteCount: byteCount, zeroed: false)
        storage = made
        return made
    }
}
