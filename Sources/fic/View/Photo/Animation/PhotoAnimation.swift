#if Tool
import FICDemo
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import ImageCodec

/// An animated image file shown by `fic view photo`: its frames stored once in an image table
/// of the cache folder (the file's own namespace, kept between launches; a temporary one when
/// another fic process has it open), at the size that fits the window but never above the
/// image's own (a small animation is scaled up when drawn, so that the table never holds more
/// pixels than the decoder's limits let the file have). The frames are stored on a thread of
/// their own through the library's family policy while the window already shows; the player
/// shows each as soon as it is stored.
final class PhotoAnimation: Sendable {
    /// What storing the frames has come to.
    enum Storing: Sendable, Equatable {
        case running
        case done
        case failed(String)
    }

    /// The cache the frames are in.
    let cache: ImageCache
    /// The file's entity: its name, versioned by a hash of its bytes.
    let entity: FileEntity
    /// The format the frames are stored in.
    let format: ImageFormat
    /// The file's animation: canvas size, frame count, durations and loop count.
    let info: AnimationInfo
    /// Where the cache is, and whether that folder is removed at the end.
    let directory: String
    private let isTemporary: Bool
    private let state = LockedBox(Storing.running)
    /// The thread storing the frames, once started.
    private let storingThread = LockedBox<WorkerThread?>(nil)

    private init(cache: ImageCache, entity: FileEntity, format: ImageFormat, info: AnimationInfo, directory: String, isTemporary: Bool) {
        self.cache = cache
        self.entity = entity
        self.format = format
        self.info = info
        self.directory = directory
        self.isTemporary = isTemporary
    }

    /// The animation in the image file at `path`, with its frames being stored in the cache
    /// folder `cacheFolder()` for a `width × height` window; nil when the file is not an
    /// animation of more than one frame (or cannot be read as one): the caller shows it as a
    /// still photo, which reports what is wrong with it.
    ///
    /// - Throws: ``CLIError`` when the cache folder cannot be made or opened.
    static func open(path: String, cacheFolder: () throws -> String, width: Int, height: Int) throws -> PhotoAnimation? {
        guard ImageFiles.mayBeAnimated(path), let hashed = try? SourceMemo.readAndHash(path),
            let info = (try? AnimatedImageDecoder(hashed.bytes))?.info, info.frameCount > 1
        else { return nil }
        let scale = min(1, Double(width) / Double(info.width), Double(height) / Double(info.height))
        // Every frame and the record within a quarter of the table, as the family policy requires.
        let format = try ImageFormat(
            name: "frames",
            size: CGSize(width: max(1, (Double(info.width) * scale).rounded()), height: max(1, (Double(info.height) * scale).rounded())),
            scale: 1, style: .bgra32Premultiplied, maximumCount: 4 * (info.frameCount + 1))
        let real = try DefaultCache.realPath(path)
        let entity = FileEntity(entityID: (real as NSString).lastPathComponent, sourceImageID: hashed.hash, url: URL(fileURLWithPath: real))
        var directory = try cacheFolder()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot make the cache folder \(directory): \(error.localizedDescription)")
        }
        var cache = try CacheOpener.openUnlessInUse(
            directory: directory, namespace: DefaultCache.namespace(forResolvedPath: real), formats: [format])
        let isTemporary = cache == nil
        if cache == nil {
            // Never two writers on one namespace: this window stores the frames for itself.
            directory = try DemoPhotos.outputFolder(nil)
            cache = try CacheOpener.open(directory: directory, namespace: "view", formats: [format])
        }
        let animation = PhotoAnimation(
            cache: cache!, entity: entity, format: format, info: info, directory: directory, isTemporary: isTemporary)
        animation.store(hashed.bytes)
        return animation
    }

    /// Stores every frame (nothing when they are stored from an earlier launch), then says so.
    private func store(_ bytes: ImageBytes) {
        let cache = self.cache, entity = self.entity, state = self.state
        do {
            let thread = try WorkerThread(name: "fic view: frames") {
                do {
                    try cache.storeImages(from: .bytes(bytes), for: entity)
                    state.withLockedValue { $0 = .done }
                } catch {
                    state.withLockedValue { $0 = .failed("cannot store the frames: \(error)") }
                }
            }
            storingThread.withLockedValue { $0 = thread }
        } catch {
            state.withLockedValue { $0 = .failed("cannot start a thread to store the frames: \(error)") }
        }
    }

    /// What storing the frames has come to.
    var storing: Storing { state.withLockedValue { $0 } }

    /// A player of the stored frames.
    func player() -> AnimationPlayer {
        AnimationPlayer(cache: cache, entity: entity, format: format.name)
    }

    /// Closes the cache (a store still running stops with `.closed`), waits for the storing
    /// thread, and removes a temporary cache.
    func close() {
        cache.close()
        storingThread.withLockedValue { $0 }?.join()
        if isTemporary { try? FileManager.default.removeItem(atPath: directory) }
    }
}
#endif
