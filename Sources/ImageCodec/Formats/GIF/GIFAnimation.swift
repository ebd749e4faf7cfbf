#if GIF
extension GIFFormat {
    /// Any GIF may: its frames are counted by walking its blocks, which this look does not do.
    package static func mayBeAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool { true }

    /// The GIF's frames (one for a still GIF).
    package static func frameSource(_ bytes: ImageBytes, options: DecodingOptions) throws -> any AnimationFrameSource {
        try GIFAnimation(bytes, options: options)
    }
}

/// A GIF's frames, composited as Chromium shows them: on the canvas of ``GIFCanvas`` (the
/// logical screen, grown to hold the first frame), each frame's palette and transparent index
/// coloured by ``GIFCanvas/colors(of:)``, transparent indices leaving the canvas as it was, the
/// parts of a frame outside the canvas not shown, and disposal to background clearing to
/// transparent (browsers ignore the background colour). Rows go straight to their canvas row,
/// interlaced or not, so one row of indices is all a frame needs besides the canvas.
///
/// Damage: data that ends with the file throws `.truncated` after the frames before it were
/// delivered. Damaged image data throws `.corruptData` when strict; otherwise the frame is
/// delivered with the rows before the damage, a warning says so, and the animation ends there.
final class GIFAnimation: AnimationFrameSource {
    let info: AnimationInfo
    private(set) var warnings: [String] = []
    /// The file's bytes, kept alive while giflib reads them through `reader`.
    private let bytes: ImageBytes
    private let reader: GIFReader
    private let canvas: AnimationCanvas
    private let strict: Bool
    private let source: ImageInfo
    /// The first frame's header, read to size the canvas; handed out by the first ``nextFrame()``.
    private var pending: GIFReader.Frame?
    /// The previous frame's disposal, applied before the next frame is drawn.
    private var disposal: (FrameDisposal, FrameRect)?
    private var index = 0
    private var finished = false
    /// Whether the file ends in the middle of a block (``GIFTimeline/isCutShort``): after its last
    /// whole frame, the animation ends with `.truncated`, not quietly.
    private let isCutShort: Bool

    /// Reads the structure of the GIF in `bytes` (from its signature) and checks the limits.
    init(_ bytes: ImageBytes, options: DecodingOptions) throws {
        self.bytes = bytes
        strict = !options.allowCorruptData
        // ImageBytes never moves its memory, and `self.bytes` keeps it alive as long as the reader.
        let (reader, first, timeline) = try bytes.withUnsafeBytes { buffer in
            let timeline = GIFTimeline(buffer, maximumFrames: options.maximumFrames)
            let reader = try GIFReader(GIFInput(bytes: buffer))
            return (reader, try reader.readFirstFrame(), timeline)
        }
        let shape = GIFCanvas(first)
        try AnimationLimits.check(
            width: shape.width, height: shape.height, frames: timeline.delays.count,
            framePixels: timeline.framePixels, options: options, format: "GIF")
        self.reader = reader
        pending = first
        isCutShort = timeline.isCutShort
        info = AnimationInfo(
            format: .gif, width: shape.width, height: shape.height, loopCount: timeline.loopCount,
            durations: timeline.delays.map { $0 * 10 })
        source = ImageInfo(format: .gif, width: shape.width, height: shape.height, hasAlpha: true, frameCount: info.frameCount)
        canvas = try AnimationCanvas(width: shape.width, height: shape.height)
    }

    func nextFrame() throws -> DecodedImage? {
        guard !finished else { return nil }
        guard index < info.frameCount else {
            finished = true
            if isCutShort {
                throw ImageCacheError(
                    .truncated,
                    "The GIF data ends after frame \(index), in the blocks that follow it; the \(index) frames before were decoded. The file was cut short; download or copy it again."
                )
            }
            return nil
        }
        let frame: GIFReader.Frame
        if let pending {
            frame = pending
            self.pending = nil
        } else {
            guard let next = try withTruncation({ try reader.readFrame() }) else {
                finished = true
                return nil
            }
            frame = next
        }
        if let (previous, rect) = disposal {
            switch previous {
            case .none: break
            case .background: canvas.clear(rect)
            case .previous: canvas.restore(rect)
            }
        }
        let visible = FrameRect(x: frame.left, y: frame.top, width: frame.width, height: frame.height)
            .clipped(width: canvas.width, height: canvas.height)
        if let visible, frame.disposal == .previous { try canvas.save(visible) }
        disposal = visible.map { (frame.disposal, $0) }
        if let visible {
            try draw(frame, visible: visible)
        } else {
            try withTruncation { try reader.skipImageData() }
        }
        index += 1
        return try canvas.snapshot(source: source)
    }

    /// Reads the frame's rows and paints the pixels of each that fall inside the canvas.
    private func draw(_ frame: GIFReader.Frame, visible: FrameRect) throws {
        let colors = GIFCanvas.colors(of: frame)
        let transparent = frame.transparentIndex ?? -1
        let order = frame.interlaced ? GIFCanvas.interlacedOrder(height: frame.height) : []
        let line = try LargeBufferPool.allocate(byteCount: frame.width, zeroed: false)
        let indices = line.base.assumingMemoryBound(to: UInt8.self)
        let skip = visible.x - frame.left  // 0: a frame never starts left of the canvas
        try colors.withUnsafeBufferPointer { table in
            for stored in 0..<frame.height {
                do {
                    try reader.readLine(indices, count: frame.width)
                } catch let error as ImageCacheError where error.code == .corruptData && !strict {
                    warnings.append("\(error.message) Frame \(index + 1) shows its rows before the damage, and is the last.")
                    finished = true
                    return
                } catch let error as ImageCacheError where error.code == .truncated {
                    throw truncated()
                }
                let y = frame.top + (frame.interlaced ? order[stored] : stored)
                guard y >= visible.y, y < visible.y + visible.height else { continue }
                canvas.withRow(y) { row in
                    let out = row + visible.x
                    for x in 0..<visible.width {
                        let value = Int(indices[skip + x])
                        if value != transparent { out[x] = table[value] }
                    }
                }
            }
        }
    }

    /// Runs `body`, naming the frame when the data ends inside it.
    private func withTruncation<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as ImageCacheError where error.code == .truncated {
            throw truncated()
        }
    }

    private func truncated() -> ImageCacheError {
        ImageCacheError(
            .truncated,
            "The GIF data ends inside frame \(index + 1) of \(info.frameCount); the frames before it were decoded. The file was cut short; download or copy it again."
        )
    }
}
#endif
