import ArgumentParser
import FastImageCache
import Foundation

/// `fic decode FILE --out FILE.png`: a full-size, upright decode.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a JPEG, PNG or WebP at full size, upright, into a PNG file.",
        discussion: "Exit status: 0 when written, 1 when the file cannot be decoded, 2 on usage errors."
    )

    @Argument(help: ArgumentHelp("The image file.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("The PNG file to write.", valueName: "file.png"))
    var out: String

    func run() throws {
        let decoded: DecodedImage
        do {
            decoded = try ImageDecoder.decode(contentsOf: Paths.absolute(file))
        } catch let error as ImageCacheError {
            throw CLIError("cannot decode \(file): \(error.message)")
        }
        do {
            try PNGEncoder.write(pixels: decoded.baseAddress, width: decoded.width, height: decoded.height,
                bytesPerRow: decoded.bytesPerRow, format: decoded.pixelFormat, to: Paths.absolute(out))
        } catch {
            throw CLIError("cannot write \(out): \(error)")
        }
        let info = decoded.source
        let turned = info.orientation == .up ? "" : ", EXIF orientation \(info.orientation.rawValue) applied"
        print("wrote \(out): \(decoded.width)×\(decoded.height) px from a \(info.format.rawValue) stored \(info.width)×\(info.height)\(turned)")
    }
}
