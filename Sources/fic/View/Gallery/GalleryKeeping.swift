#if Tool
import FICDemo
import FICCommandLine
import FastImageCache
import Foundation

/// What the gallery keeps between launches when its cache is not temporary: the memo of the
/// photos' versions (so that the next launch finds every stored photo before its first frame),
/// and the cache folder's size limit.
struct GalleryKeeping: Sendable {
    /// The gallery's cache.
    let location: CacheLocation
    /// The memo as it was at launch.
    let memo: SourceMemo
    /// Whether the namespace is this photo folder's own: then the images of photos no longer in
    /// the folder are deleted (in a namespace shared with other folders they may be theirs).
    let ownsNamespace: Bool
    /// The most the cache folder's tables may occupy, in bytes.
    let limitBytes: Int

    /// After the ingest (with the cache still open): deletes the images of photos no longer in
    /// the folder, saves the memo, and trims the cache folder. Returns lines for stderr.
    func finish(photos: GalleryPhotos, fresh: [Int: SourceMemo.Row?], cache: ImageCache) -> [String] {
        var lines: [String] = []
        if ownsNamespace {
            for name in photos.vanished(from: cache) {
                cache.deleteImages(for: DemoPhoto(entityID: name, sourceImageID: "", url: URL(fileURLWithPath: photos.folder + "/" + name)))
            }
        }
        do {
            try photos.memo(updating: memo, fresh: fresh).save(
                directory: location.directory, namespace: location.namespace, followLinks: location.followLinks)
        } catch {
            lines.append("note: cannot remember the photos' versions (\(error)); the next launch reads them again")
        }
        if let line = CacheTrim.run(
            directory: location.directory, keeping: location.namespace, limitBytes: limitBytes, followLinks: location.followLinks)
        {
            lines.append(line)
        }
        return lines
    }
}
#endif
