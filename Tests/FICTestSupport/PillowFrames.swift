import Foundation

/// Pillow's composited frames of an animation (`ImageSequence`, each `.convert("RGBA")`), its
/// durations and its `loop`: the independent reference the package's animation decoders, and
/// the frames the cache stores, are compared with. Pillow is the project's (scripts/install-deps
/// makes .build/python), else Debian's.
public struct PillowFrames: Sendable {
    /// The canvas's width and height.
    public let width: Int, height: Int
    /// Each frame's pixels: RGBA, straight alpha, rows packed (`width × 4` bytes each).
    public let frames: [[UInt8]]
    /// Each frame's duration in milliseconds, as Pillow reports it.
    public let durations: [Double]
    /// The file's `loop` as Pillow reports it (a GIF's stored repeat count), if any.
    public let loop: Int?

    /// The Python with Pillow (``ExternalTools/pythonWithPillow``).
    public static var python: String { ExternalTools.pythonWithPillow }

    /// Runs a Python script with Pillow; `arguments` follow the script.
    public static func run(_ script: String, _ arguments: [String]) throws {
        try ExternalTools.run(python, ["-c", script] + arguments)
    }

    /// The photo at `path` resized to exactly `width × height` by ImageMagick, as a PNG in
    /// `folder`: a frame to make animations of. With `roundAlpha`, only an ellipse of it is opaque
    /// and the rest transparent, with no partly transparent edge: Pillow's APNG blending pastes
    /// through the alpha as a mask, which squares partial alpha where browsers composite.
    public static func still(_ path: String, _ width: Int, _ height: Int, roundAlpha: Bool = false, in folder: String) throws -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let out = folder + "/\(name)-\(width)x\(height)\(roundAlpha ? "-round" : "").png"
        var arguments = [path, "-resize", "\(width)x\(height)!"]
        if roundAlpha {
            arguments += [
                "(", "+clone", "-fill", "black", "-colorize", "100", "-fill", "white", "+antialias",
                "-draw", "ellipse \(width / 2),\(height / 2) \(width / 2 - 1),\(height / 2 - 1) 0,360", ")",
                "-alpha", "off", "-compose", "copy_opacity", "-composite"
            ]
        }
        // ImageMagick is /usr/bin/convert (another `convert` may come first on PATH).
        try ExternalTools.run("/usr/bin/convert", arguments + ["PNG32:" + out])
        return out
    }

    /// Pillow's frames of the animation in `bytes`, working in `folder`.
    public init(_ bytes: [UInt8], in folder: String) throws {
        let input = folder + "/reference-\(UUID().uuidString)", output = input + ".frames", meta = input + ".json"
        try ExternalTools.write(bytes, to: input)
        try Self.run(
            """
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
        let info = try JSONSerialization.jsonObject(with: Data(ExternalTools.bytes(atPath: meta))) as? [String: Any] ?? [:]
        guard let size = info["size"] as? [Int], size.count == 2, let durations = info["durations"] as? [Any] else {
            throw ExternalTools.Failure(description: "Pillow's frames of \(input): no size or durations")
        }
        (width, height) = (size[0], size[1])
        self.durations = durations.map { ($0 as? NSNumber)?.doubleValue ?? 0 }
        loop = (info["loop"] as? NSNumber)?.intValue
        let raw = try ExternalTools.bytes(atPath: output)
        let frameBytes = width * height * 4
        guard raw.count == self.durations.count * frameBytes else {
            throw ExternalTools.Failure(
                description: "Pillow wrote \(raw.count) bytes for \(self.durations.count) frames of \(width)×\(height)")
        }
        frames = (0..<self.durations.count).map { Array(raw[$0 * frameBytes..<($0 + 1) * frameBytes]) }
    }
}
