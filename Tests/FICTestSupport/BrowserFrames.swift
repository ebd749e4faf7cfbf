import Foundation

/// Every frame of an image as Chromium shows it: its own decoders, reached through WebCodecs'
/// `ImageDecoder` in headless Chromium (`scripts/browser-decode`), frames composited and in
/// sRGB. The reference a person compares the package's animations with, beside Pillow's.
public struct BrowserFrames: Sendable {
    /// One frame: its size, its duration (microseconds, as WebCodecs gives it) and its pixels,
    /// straight RGBA, rows packed.
    public struct Frame: Sendable {
        public let width: Int, height: Int
        public let durationMicroseconds: Int
        public let rgba: [UInt8]
    }

    /// The frames Chromium decoded, in order (fewer than ``frameCount`` when one failed).
    public let frames: [Frame]
    /// The frame count Chromium's decoder reports (nil when it could not open the file).
    public let frameCount: Int?
    /// What Chromium reported as failing, if anything: the file, or the first frame it could not
    /// decode.
    public let error: String?

    /// What is missing for the browser references (nil: nothing): Chromium, its driver, or the
    /// Python of `.build/python` with selenium (scripts/install-deps --test installs them).
    public static let missing: String? = {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", ExternalTools.projectPython]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing: run scripts/install-deps --test"
        }
        return nil
    }()

    /// Chromium's frames of each file of `paths`, in one browser, working in `folder`.
    public static func decode(_ paths: [String], in folder: String) throws -> [BrowserFrames] {
        let out = folder + "/browser-\(UUID().uuidString)"
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        try ExternalTools.run(
            ExternalTools.projectPython, [root.appendingPathComponent("scripts/browser-decode").path, "--out", out] + paths)
        return try paths.indices.map { index in
            let json = try ExternalTools.bytes(atPath: "\(out)/\(index).json")
            guard let report = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
                throw ExternalTools.Failure(description: "scripts/browser-decode wrote no report for \(paths[index])")
            }
            let described = report["frames"] as? [[String: Any]] ?? []
            let frames = try described.enumerated().map { frame, entry in
                let width = (entry["width"] as? NSNumber)?.intValue ?? 0, height = (entry["height"] as? NSNumber)?.intValue ?? 0
                let rgba = try ExternalTools.bytes(atPath: "\(out)/\(index).\(frame).rgba")
                guard rgba.count == width * height * 4 else {
                    throw ExternalTools.Failure(
                        description: "Chromium's frame \(frame) of \(paths[index]): \(rgba.count) bytes for \(width)×\(height)")
                }
                return Frame(
                    width: width, height: height, durationMicroseconds: (entry["duration"] as? NSNumber)?.intValue ?? 0, rgba: rgba)
            }
            return BrowserFrames(
                frames: frames, frameCount: (report["frameCount"] as? NSNumber)?.intValue, error: report["error"] as? String)
        }
    }
}
