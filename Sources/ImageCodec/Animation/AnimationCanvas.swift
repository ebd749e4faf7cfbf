/// A rectangle of a frame on its canvas.
struct FrameRect: Equatable {
    var x: Int, y: Int, width: Int, height: Int

    /// The part inside a `width × height` canvas, or nil when none is (a GIF frame may lie partly
    /// or wholly outside its canvas; what lies outside is not shown, as in browsers).
    func clipped(width canvasWidth: Int, height canvasHeight: Int) -> FrameRect? {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x + width, canvasWidth), y1 = min(y + height, canvasHeight)
        guard x1 > x0, y1 > y0 else { return nil }
        return FrameRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// The canvas an animation is composited on (premultiplied BGRA, transparent at the start), and
/// the one saved copy that "dispose to previous" needs: the only full-size memory an animated
/// decode keeps, however many frames there are. GIF and APNG composite here; WebP's libwebp keeps
/// a canvas of its own.
final class AnimationCanvas {
    let width: Int, height: Int
    private let pixels: LargeBufferPool.Storage
    /// Allocated the first time a frame is to be disposed to what was there before it.
    private var saved: LargeBufferPool.Storage?

    /// A transparent `width × height` canvas (the caller checked the size against its limits).
    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        pixels = try LargeBufferPool.allocate(byteCount: width * height * 4, zeroed: true)
    }

    /// Calls `body` with the first pixel of row `y` (`width` pixels).
    func withRow<R>(_ y: Int, _ body: (UnsafeMutablePointer<UInt32>) throws -> R) rethrows -> R {
        precondition(y >= 0 && y < height)
        return try withExtendedLifetime(pixels) {
            try body(pixels.base.assumingMemoryBound(to: UInt32.self) + y * width)
        }
    }

    /// Calls `body` with the first pixel of `rect` (within the canvas); rows are `width × 4`
    /// bytes apart.
    func withPixels<R>(at rect: FrameRect, _ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        precondition(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= width && rect.y + rect.height <= height)
        return try withExtendedLifetime(pixels) {
            try body(pixels.base + (rect.y * width + rect.x) * 4)
        }
    }

    /// Lends the canvas as it is now (for the length of a call: the canvas's owner keeps it).
    func lend(source: ImageInfo, scaleDenominator: Int = 1) -> LentCanvas {
        LentCanvas(
            base: UnsafeRawPointer(pixels.base), bytesPerRow: width * 4, width: width, height: height,
            pixelFormat: .bgra32Premultiplied, source: source, scaleDenominator: scaleDenominator)
    }

    /// Makes `rect` (within the canvas) transparent: "dispose to background", which browsers
    /// show as transparent whatever background colour the file names.
    func clear(_ rect: FrameRect) {
        for y in rect.y..<rect.y + rect.height {
            withRow(y) { ($0 + rect.x).update(repeating: 0, count: rect.width) }
        }
    }

    /// Keeps a copy of `rect` (within the canvas) for ``restore(_:)``.
    func save(_ rect: FrameRect) throws {
        let copy = try saved ?? LargeBufferPool.allocate(byteCount: width * height * 4, zeroed: false)
        saved = copy
        for y in rect.y..<rect.y + rect.height {
            withRow(y) { row in
                (copy.base.assumingMemoryBound(to: UInt32.self) + y * width + rect.x).update(from: row + rect.x, count: rect.width)
            }
        }
    }

    /// Puts back what ``save(_:)`` kept of `rect`: "dispose to previous".
    func restore(_ rect: FrameRect) {
        guard let saved else { return }
        for y in rect.y..<rect.y + rect.height {
            withRow(y) { row in
                (row + rect.x).update(from: saved.base.assumingMemoryBound(to: UInt32.self) + y * width + rect.x, count: rect.width)
            }
        }
    }

    /// `source` drawn over `destination`, both premultiplied: each channel is
    /// `s + d × (255 − αs) / 255`, rounded.
    static func over(_ source: UInt32, _ destination: UInt32) -> UInt32 {
        let alpha = source >> 24
        if alpha == 255 { return source }
        if alpha == 0 { return destination }
        return add(source, to: destination, keeping: 255 - alpha)
    }

    /// `source` added to `keep`/255 of `destination`, both premultiplied: each channel is
    /// `s + d × keep / 255`, rounded, at most 255. Drawing over keeps what the source's alpha
    /// leaves; covering part of a pixel keeps the part not covered.
    static func add(_ source: UInt32, to destination: UInt32, keeping keep: UInt32) -> UInt32 {
        var result: UInt32 = 0
        for shift in stride(from: UInt32(0), through: 24, by: 8) {
            let d = (destination >> shift) & 0xFF, s = (source >> shift) & 0xFF
            result |= min(255, s + (d * keep + 127) / 255) << shift
        }
        return result
    }

    /// A bitmap of its own holding the canvas as it is now: the frame handed to the caller.
    func snapshot(source: ImageInfo) throws -> DecodedImage {
        let image = try DecodedImage(
            allocating: width, height: height, pixelFormat: .bgra32Premultiplied, source: source,
            isOrientationApplied: true, zeroFilled: false)
        for y in 0..<height {
            withRow(y) { row in
                (image.baseAddress + y * image.bytesPerRow).copyMemory(from: row, byteCount: width * 4)
            }
        }
        return image
    }
}

/// Where a frame's disposal leaves the canvas before the next frame is drawn.
enum FrameDisposal {
    /// The frame stays.
    case none
    /// Its rectangle becomes transparent.
    case background
    /// Its rectangle goes back to what it was before the frame was drawn.
    case previous
}
