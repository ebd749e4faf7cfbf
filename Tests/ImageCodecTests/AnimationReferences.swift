import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Animations made at test time from the bundled photos — GIFs by ImageMagick, animated WebPs by
/// img2webp and gif2webp (Debian's webp), APNGs by Pillow — and Pillow's own composited frames
/// of them (``PillowFrames``), the independent reference every frame is compared with.
enum AnimationFiles {
    /// A fresh folder for one test's files.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "fic-animation-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `photo` (of the test data's photos/) resized to exactly `width × height`, as a PNG in
    /// `folder` (``PillowFrames/still(_:_:_:roundAlpha:in:)``).
    static func still(_ photo: String, _ width: Int, _ height: Int, roundAlpha: Bool = false, in folder: String) throws -> String {
        try PillowFrames.still(TestData.path("photos/" + photo), width, height, roundAlpha: roundAlpha, in: folder)
    }

    /// Runs a Python script with Pillow; `arguments` follow the script.
    static func pillow(_ script: String, _ arguments: [String]) throws {
        try PillowFrames.run(script, arguments)
    }

    /// Pillow's composited frames of `bytes` (``PillowFrames``), premultiplied here as the
    /// package's pixels are, its durations and its `loop`.
    static func reference(_ bytes: [UInt8], in folder: String) throws -> (frames: [DecodedImage], durations: [Double], loop: Int?) {
        let pillow = try PillowFrames(bytes, in: folder)
        let (width, height) = (pillow.width, pillow.height)
        let frames = pillow.frames.map { image(rgba: $0, width: width, height: height) }
        return (frames, pillow.durations, pillow.loop)
    }

    /// Straight RGBA pixels, rows packed (a reference's frame: Pillow's or Chromium's), as the
    /// package's pixels are: premultiplied BGRA.
    static func image(rgba raw: [UInt8], width: Int, height: Int) -> DecodedImage {
        let image = DecodedImage(
            width: width, height: height, pixelFormat: .bgra32Premultiplied,
            source: ImageInfo(format: .png, width: width, height: height, hasAlpha: true), isOrientationApplied: true)
        for y in 0..<height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let p = (y * width + x) * 4
                row[x] = SamplePipeline.pixel(UInt32(raw[p]), UInt32(raw[p + 1]), UInt32(raw[p + 2]), UInt32(raw[p + 3]))
            }
        }
        return image
    }

    /// Every frame the package decodes of `bytes`, and its info.
    static func decode(_ bytes: [UInt8], options: DecodingOptions = .init()) throws -> (info: AnimationInfo, frames: [AnimationFrame]) {
        let decoder = try AnimatedImageDecoder(bytes, options: options)
        var frames: [AnimationFrame] = []
        try decoder.forEachFrame { frames.append($0) }
        return (decoder.info, frames)
    }

    /// The frames decoded of `bytes` until it throws, and the error.
    static func decodeUntilError(_ bytes: [UInt8], options: DecodingOptions = .init()) -> (
        frames: [AnimationFrame], error: ImageCacheError?
    ) {
        var frames: [AnimationFrame] = []
        do {
            let decoder = try AnimatedImageDecoder(bytes, options: options)
            try decoder.forEachFrame { frames.append($0) }
            return (frames, nil)
        } catch let error as ImageCacheError {
            return (frames, error)
        } catch {
            Issue.record("not an ImageCacheError: \(error)")
            return (frames, nil)
        }
    }

    /// Pixels that differ by more than `tolerance` in any premultiplied channel.
    static func differingPixels(_ a: DecodedImage, _ b: DecodedImage, tolerance: Int) -> Int {
        guard a.width == b.width, a.height == b.height else { return Int.max }
        var count = 0
        for y in 0..<a.height {
            let p = a.baseAddress + y * a.bytesPerRow, q = b.baseAddress + y * b.bytesPerRow
            for x in 0..<a.width {
                for c in 0..<4
                where abs(Int(p.load(fromByteOffset: x * 4 + c, as: UInt8.self)) - Int(q.load(fromByteOffset: x * 4 + c, as: UInt8.self)))
                    > tolerance
                {
                    count += 1
                    break
                }
            }
        }
        return count
    }
}
