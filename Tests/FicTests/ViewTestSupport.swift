import FICHarness
import FastImageCache
import Foundation
import ImageCodec
import Testing

/// The `fic view` tests: one virtual X server at a time (`xvfb-run -a` picks a free display
/// number, which two starting at the same moment can both pick).
@Suite("fic view, in a window on Xvfb", .serialized)
struct ViewTests {}

/// Runs `fic view` in a real window on a virtual X server (`xvfb-run`), and reads back what it
/// showed.
enum ViewRunner {
    /// Whether `xvfb-run` is installed (scripts/install-deps installs it).
    static let hasXvfb = FileManager.default.isExecutableFile(atPath: "/usr/bin/xvfb-run")

    /// Runs `fic ARGUMENTS` under a new `width × height` virtual screen; retries once when the X
    /// server could not start (another one took the display number at the same moment).
    static func run(_ arguments: [String], width: Int, height: Int, environment: [String: String] = [:]) throws -> FicRun {
        let binary = try #require(Fic.binary, "the fic binary was not found next to the test bundle; set FIC_BINARY")
        let merged = environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        var last: FicRun?
        for _ in 0..<2 {
            let run = try ChildProcess.capture(
                "/usr/bin/xvfb-run", xvfbArguments(width: width, height: height) + [binary] + arguments, environment: merged)
            if run.status == 0 || !run.stderr.contains("Xvfb failed to start") { return run }
            last = run
        }
        return last!
    }

    /// `xvfb-run`'s arguments for a new `width × height` virtual screen.
    static func xvfbArguments(width: Int, height: Int) -> [String] {
        ["-a", "-s", "-screen 0 \(width)x\(height)x24 -nolisten tcp"]
    }

    /// The `--stats` JSON of a run.
    static func stats(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }
}

/// A decoded PNG (or other image) as 8-bit BGR(A) pixels, for comparing screenshots.
struct Picture {
    let width: Int
    let height: Int
    private let image: DecodedImage

    init(_ path: String) throws {
        image = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: path)))
        width = image.width
        height = image.height
    }

    /// The blue, green and red bytes of pixel (`x`, `y`).
    func bgr(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let p = image.baseAddress + y * image.bytesPerRow + x * 4
        return (p.load(as: UInt8.self), p.load(fromByteOffset: 1, as: UInt8.self), p.load(fromByteOffset: 2, as: UInt8.self))
    }

    /// Pixels of the `w × h` rectangle at (`x`, `y`) that differ from `other`'s rectangle at
    /// (`ox`, `oy`) by more than `tolerance` in some channel.
    func differences(x: Int, y: Int, w: Int, h: Int, from other: Picture, ox: Int, oy: Int, tolerance: Int = 0) -> Int {
        var count = 0
        for j in 0..<h {
            for i in 0..<w {
                let a = bgr(x + i, y + j), b = other.bgr(ox + i, oy + j)
                if abs(Int(a.0) - Int(b.0)) > tolerance || abs(Int(a.1) - Int(b.1)) > tolerance || abs(Int(a.2) - Int(b.2)) > tolerance {
                    count += 1
                }
            }
        }
        return count
    }

    /// Peak signal-to-noise ratio of a rectangle against `other`'s, in dB.
    func psnr(x: Int, y: Int, w: Int, h: Int, against other: Picture, ox: Int, oy: Int) -> Double {
        var total = 0.0
        for j in 0..<h {
            for i in 0..<w {
                let a = bgr(x + i, y + j), b = other.bgr(ox + i, oy + j)
                for (u, v) in [(a.0, b.0), (a.1, b.1), (a.2, b.2)] { total += Double((Int(u) - Int(v)) * (Int(u) - Int(v))) }
            }
        }
        let mse = total / Double(w * h * 3)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }
}
