#if Tool
import FICCommandLine
import ArgumentParser
import FastImageCache
import Foundation
import ImageCodec

/// `fic decode FILE --out FILE.png`: a full-size, upright decode; with `--frames`, every frame of
/// an animation, composited, into a folder.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract:
            "Decode a JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF (the first frame of an animation) at full size, upright, into a PNG file.",
        discussion:
            "A damaged file is decoded as browsers show it (what can be recovered; the rest of a JPEG grey, of a GIF transparent or black) and what was wrong is listed; --strict refuses it. With --frames, every frame of a GIF, animated WebP, APNG or AVIF sequence (a still image is one frame), composited on its canvas as browsers show it, is written to --out, a folder, as frame-0000.png, frame-0001.png, …; a file cut short keeps the frames before the cut and exits 1. Exit status: 0 when written, 1 when the file cannot be decoded, 2 on usage errors."
    )

    @Argument(help: ArgumentHelp("The image file.", valueName: "file"))
    var file: String

    @Option(
        name: .long,
        help: ArgumentHelp("The PNG file to write (with --frames, the folder to write the frames into).", valueName: "file.png"))
    var out: String

    @Flag(
        name: .long,
        help:
            "Write every frame of an animation, composited at full size, as frame-0000.png, frame-0001.png, … into the folder --out names.")
    var frames = false

    @Flag(
        name: .long,
        help:
            "With --frames: print one JSON object, the frames' indices and durations (ms, as stored), the loop count (0: forever) and the canvas size."
    )
    var json = false

    @Flag(name: .long, help: "Refuse a damaged file instead of decoding what can be recovered (as browsers do, the default).")
    var strict = false

    func validate() throws {
        if json && !frames { throw ValidationError("--json goes with --frames") }
    }

    func run() throws {
        if frames { return try writeFrames() }
        let decoded: DecodedImage
        do {
            decoded = try ImageDecoder.decode(contentsOf: Paths.absolute(file), options: DecodingOptions(allowCorruptData: !strict))
        } catch let error as ImageCacheError {
            throw CLIError("cannot decode \(file): \(error.message)")
        }
        do {
            try PNGEncoder.write(
                pixels: decoded.baseAddress, width: decoded.width, height: decoded.height,
                bytesPerRow: decoded.bytesPerRow, format: decoded.pixelFormat, to: Paths.absolute(out))
        } catch {
            throw CLIError("cannot write \(out): \(error)")
        }
        let info = decoded.source
        let turned = info.orientation == .up ? "" : ", EXIF orientation \(info.orientation.rawValue) applied"
        print(
            "wrote \(out): \(decoded.width)×\(decoded.height) px from a \(info.format.rawValue) stored \(info.width)×\(info.height)\(turned)"
        )
        if !decoded.warnings.isEmpty {
            print("the file is damaged; what could be decoded is shown:")
            for warning in decoded.warnings { print("  \(warning)") }
        }
    }

    /// What `--frames --json` prints.
    struct FramesReport: Encodable {
        struct Frame: Encodable {
            let index: Int
            let duration_ms: Int
        }
        let frames: [Frame]
        let loop_count: Int
        let width: Int
        let height: Int
    }

    /// `--frames`: every composited frame into the folder `out`, one at a time (none is kept).
    private func writeFrames() throws {
        let folder = Paths.absolute(out)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot make \(out): \(error.localizedDescription)")
        }
        var written: [FramesReport.Frame] = []
        let decoder: AnimatedImageDecoder
        do {
            decoder = try AnimatedImageDecoder(contentsOf: Paths.absolute(file), options: DecodingOptions(allowCorruptData: !strict))
            try decoder.forEachFrame { frame in
                let name = folder + "/" + String(format: "frame-%04d.png", frame.index)
                let image = frame.image
                do {
                    try PNGEncoder.write(
                        pixels: image.baseAddress, width: image.width, height: image.height,
                        bytesPerRow: image.bytesPerRow, format: image.pixelFormat, to: name)
                } catch {
                    throw CLIError("cannot write \(name): \(error)")
                }
                written.append(FramesReport.Frame(index: frame.index, duration_ms: frame.durationMs))
            }
        } catch let error as ImageCacheError {
            let kept = written.isEmpty ? "" : " (the \(written.count) frames before the damage were written)"
            throw CLIError("cannot decode \(file): \(error.message)\(kept)")
        }
        let info = decoder.info
        if json {
            print(try Formatting.json(FramesReport(frames: written, loop_count: info.loopCount, width: info.width, height: info.height)))
        } else {
            let loops = info.loopCount == 0 ? "looping forever" : "playing \(info.loopCount) time\(info.loopCount == 1 ? "" : "s")"
            print(
                "wrote \(written.count) frame\(written.count == 1 ? "" : "s") of \(info.width)×\(info.height) px from a \(info.format.rawValue), \(loops), to \(out)"
            )
        }
        if !decoder.warnings.isEmpty {
            // After --json's object, on standard error, so that standard output stays one JSON value.
            let lines = ["the file is damaged; what could be decoded is shown:"] + decoder.warnings.map { "  " + $0 }
            if json {
                FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            } else {
                lines.forEach { print($0) }
            }
        }
    }
}
#endif
