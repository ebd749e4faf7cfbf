import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Animations made at test time from the bundled photos — GIFs by ImageMagick, animated WebPs by
/// img2webp and gif2webp (Debian's webp), APNGs by Pillow — and Pillow's own composited frames
/// of them, the independent reference every frame is compared with.
enum AnimationFiles {
    /// The project's Pillow (scripts/install-deps makes .build/python), else Debian's.
    static let python = ExternalTools.pythonWithPillow

    /// A fresh folder for one test's files.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "fic-animation-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `photo` (of the test data's photos/) resized to exactly `width × height`, as a PNG in
    /// `folder`; with `roundAlpha`, only an ellipse of it is opaque and the rest transparent, with
    /// no partly transparent edge: Pillow's APNG blending pastes through the alpha as a mask, which
    /// squares partial alpha where browsers composite (see `apngBlendOverIsPorterDuffOver`).
    static func still(_ photo: String, _ width: Int, _ height: Int, roundAlpha: Bool = false, in folder: String) throws -> String {
        let out = folder + "/\(photo)-\(width)x\(height)\(roundAlpha ? "-round" : "").png"
        var arguments = [TestData.path("photos/" + photo), "-resize", "\(width)x\(height)!"]
        if roundAlpha {
            arguments += ["(", "+clone", "-fill", "black", "-colorize", "100", "-fill", "white", "+antialias",
                          "-draw", "ellipse \(width / 2),\(height / 2) \(width / 2 - 1),\(height / 2 - 1) 0,360", ")",
                          "-alpha", "off", "-compose", "copy_opacity", "-composite"]
        }
        try ExternalTools.run(ExternalTools.convert, arguments + ["PNG32:" + out])
        return out
    }

    /// Runs a Python script with Pillow; `arguments` follow the script.
    static func pillow(_ script: String, _ arguments: [String]) throws {
        try ExternalTools.run(python, ["-c", script] + arguments)
    }

    /// Pillow's composited frames of `bytes` (`ImageSequence`, each `.convert("RGBA")`,
    /// premultiplied here as the package's pixels are), its durations and its `loop`.
    static func reference(_ bytes: [UInt8], in folder: String) throws -> (frames: [DecodedImage], durations: [Double], loop: Int?) {
        let input = folder + "/reference-\(UUID().uuidString)", output = input + ".frames", meta = input + ".json"
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        try pillow("""
            import sys, json
            from PIL import Image, ImageSequence
            image = Image.open(sys.argv[1])
            durations = []
            with open(sys.argv[2], "wb") as out:
                for frame in ImageSequence.Iterator(image):
                    durations.append(frame.info.get("duration", 0))
                    out.write(frame.convert("RGBA").tobytes())
            json.dump({"size": image.size, "durations": durations, "loop": image.info.get("loop")}, open(sys.argv[3], "w"))
            """, [input, output, meta])
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: meta))) as! [String: Any]
        let size = info["size"] as! [Int]
        let (width, height) = (size[0], size[1])
        let raw = try ExternalTools.bytes(atPath: output)
        let durations = (info["durations"] as! [Any]).map { ($0 as? NSNumber)?.doubleValue ?? 0 }
        try #require(raw.count == durations.count * width * height * 4)
        let frames = (0..<durations.count).map { n in
            let image = DecodedImage(width: width, height: height, pixelFormat: .bgra32Premultiplied,
                                     source: ImageInfo(format: .png, width: width, height: height, hasAlpha: true), isOrientationApplied: true)
            for y in 0..<height {
                let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let p = ((n * height + y) * width + x) * 4
                    row[x] = SamplePipeline.pixel(UInt32(raw[p]), UInt32(raw[p + 1]), UInt32(raw[p + 2]), UInt32(raw[p + 3]))
                }
            }
            return image
        }
        return (frames, durations, (info["loop"] as? NSNumber)?.intValue)
    }

    /// Every frame the package decodes of `bytes`, and its info.
    static func decode(_ bytes: [UInt8], options: DecodingOptions = .init()) throws -> (info: AnimationInfo, frames: [AnimationFrame]) {
        let decoder = try AnimatedImageDecoder(bytes, options: options)
        var frames: [AnimationFrame] = []
        try decoder.forEachFrame { frames.append($0) }
        return (decoder.info, frames)
    }

    /// The frames decoded of `bytes` until it throws, and the error.
    static func decodeUntilError(_ bytes: [UInt8], options: DecodingOptions = .init()) -> (frames: [AnimationFrame], error: ImageCacheError?) {
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
                for c in 0..<4 where abs(Int(p.load(fromByteOffset: x * 4 + c, as: UInt8.self)) - Int(q.load(fromByteOffset: x * 4 + c, as: UInt8.self))) > tolerance {
                    count += 1
                    break
                }
            }
        }
        return count
    }
}
