import CCairo
import FastImageCache
import Foundation

/// Makes the conventional path's JPEG thumbnails: from the photos (``ConventionalStore/build``,
/// in chunks so that progress shows), or from the images of an existing cache (re-encoded as
/// the quality-0.8 JPEGs the original demo pre-rendered).
enum ConventionalThumbnails {
    /// One thumbnail per photo, in photo order; a photo that cannot be decoded gets no file
    /// (its cells show placeholders on the conventional path too).
    static func fromPhotos(_ photos: [DemoSource], folder: String, points: Double, scale: Double, progress: (Int) -> Void) throws -> ConventionalStore {
        var paths: [String] = []
        var side = Int((points * scale).rounded(.up))
        let chunk = 32
        for start in stride(from: 0, to: photos.count, by: chunk) {
            let part = Array(photos[start..<min(photos.count, start + chunk)])
            let (store, kept, _) = try ConventionalStore.build(photos: part, folder: folder + "/\(start / chunk)", points: points, scale: scale)
            side = store.pixelSize
            let made = Dictionary(zip(kept.map(\.path), store.paths), uniquingKeysWith: { a, _ in a })
            paths += part.map { made[$0.path] ?? "" }
            progress(paths.count)
        }
        return ConventionalStore(paths: paths, pixelSize: side)
    }

    /// One thumbnail per entity of `entityIDs`, drawn from its image in `cache`.
    static func fromCache(_ cache: ImageCache, format: ImageFormat, entityIDs: [String], folder: String, progress: (Int) -> Void) throws -> ConventionalStore {
        let size = format.pixelSize
        let bytesPerRow = (size.width * 4 + 63) / 64 * 64
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * size.height, alignment: 64)
        defer { scratch.deallocate() }
        let target = try CairoImageSurface(pixels: scratch, width: size.width, height: size.height, bytesPerRow: bytesPerRow, format: .bgrx32)
        let context = cairo_create(target.surface)
        defer { cairo_destroy(context) }
        var paths: [String] = []
        for (index, id) in entityIDs.enumerated() {
            let path = folder + String(format: "/%05d.jpg", index)
            if let image = cache.cachedImage(entityID: id, format: format.name), let surface = try? image.makeCairoSurface() {
                cairo_set_source_rgb(context, 0.12, 0.12, 0.12)
                cairo_paint(context)
                cairo_set_source_surface(context, surface.surface, 0, 0)
                cairo_paint(context)
                target.flush()
                let jpeg = JPEGThumbnailEncoder.encode(bgrx: scratch, width: size.width, height: size.height, bytesPerRow: bytesPerRow, quality: 80)
                guard FileManager.default.createFile(atPath: path, contents: Data(jpeg)) else {
                    throw CLIError("cannot write \(path): is the temporary folder full?")
                }
                paths.append(path)
            } else {
                paths.append("")
            }
            if index % 16 == 0 { progress(index) }
        }
        progress(entityIDs.count)
        return ConventionalStore(paths: paths, pixelSize: size.width)
    }
}
