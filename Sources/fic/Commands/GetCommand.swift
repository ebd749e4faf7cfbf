#if Tool
import FICCommandLine
import ArgumentParser
import FastImageCache
import Foundation

/// `fic get`: writes one stored image as a PNG.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Write an image stored in a cache as a PNG file.",
        discussion: "Exit status: 0 when written, 1 when the cache has no such image, 2 on usage errors."
    )

    @OptionGroup var cacheOptions: CacheOptions

    @OptionGroup var folder: PhotoFolderOption

    @Option(name: .long, help: ArgumentHelp("The format name.", valueName: "name"))
    var format: String

    @Option(name: .long, help: ArgumentHelp("The entity: the image's path relative to the ingested folder.", valueName: "id"))
    var entity: String

    @Option(name: .long, help: ArgumentHelp("The PNG file to write.", valueName: "file.png"))
    var out: String

    @Option(
        name: .long,
        help: ArgumentHelp("For an animation: the frame to write, from 0 (its count and durations are printed).", valueName: "n"))
    var frame = 0

    func run() throws {
        let (cache, _) = try cacheOptions.location(choosing: folder).openExisting(readOnly: true)
        defer { cache.close() }
        guard let imageFormat = cache.format(named: format) else {
            throw CLIError("the cache has no format '\(format)'; its formats: \(cache.formats.map(\.name).joined(separator: ", "))")
        }
        guard frame >= 0 else { throw CLIError("--frame counts from 0", status: 2) }
        guard cache.cachedImage(entityID: entity, format: format) != nil else {
            throw CLIError(
                "the cache has no image of '\(entity)' in format '\(format)': ingest it first (see 'fic inspect' for what is stored)")
        }
        let animation = cache.animation(entityID: entity, format: format)
        guard let image = cache.cachedImage(entityID: entity, format: format, frame: frame) else {
            if let animation, animation.playsFromRing, frame < animation.frameCount {
                throw CLIError(
                    "frame \(frame) of '\(entity)' is not stored in format '\(format)': its \(animation.frameCount) frames are too many for the table, which keeps only frame 0; the others play from a ring of frames decoded while it plays"
                )
            }
            throw CLIError("'\(entity)' has \(animation?.frameCount ?? 1) frame(s) stored in format '\(format)', not a frame \(frame)")
        }
        let path = Paths.absolute(out)
        do {
            try image.writePNG(to: path)
        } catch {
            throw CLIError("cannot write \(path): \(error)")
        }
        print(
            "wrote \(out): \(image.width)×\(image.height) px, format \(imageFormat.name) (\(imageFormat.style.rawValue)), entity \(entity)")
        if let animation, animation.frameCount > 1 {
            print(
                "frame \(frame) of \(animation.frameCount); durations \(animation.durations.map { "\($0) ms" }.joined(separator: ", ")); \(animation.loopCount == 0 ? "plays forever" : "plays \(animation.loopCount) time(s)")"
            )
        }
    }
}
#endif
