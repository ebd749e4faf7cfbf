#if Tool
import FICDemo
import FICCommandLine
import CCairo
import FastImageCache
import Foundation
import ImageCodec

/// Makes the conventional path's JPEG thumbnails from the images of the gallery's cache,
/// re-encoded as the quality-0.8 JPEGs the original demo pre-rendered: the photos are not decoded
/// again for them.
enum ConventionalThumbnails {
    /// One thumbnail per item of `items` (in catalog order), drawn from its image in `cache`; an
    /// item that is nil or not stored gets no file (its cells show placeholders on the
    /// conventional path too). Stops early, leaving the rest without files, once `shouldStop`.
    static func fromCache(
        _ cache: ImageCache, format: ImageFormat, items: [GalleryCatalog.Item?], folder: String,
        progress: (Int) -> Void, shouldStop: () -> Bool = { false }
    ) throws -> ConventionalStore {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot create \(folder): \(error.localizedDescription)")
        }
        let size = format.pixelSize
        let bytesPerRow = (size.width * 4 + 63) / 64 * 64
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * size.height, alignment: 64)
        defer { scratch.deallocate() }
        let target = try CairoImageSurface(
            pixels: scratch, width: size.width, height: size.height, bytesPerRow: bytesPerRow, format: .bgrx32)
        let context = cairo_create(target.surface)
        defer { cairo_destroy(context) }
        var paths: [String] = []
        for (index, item) in items.enumerated() {
            let path = folder + String(format: "/%05d.jpg", index)
            if !shouldStop(), let image = item?.image(in: cache, format: format.name), let surface = try? image.makeCairoSurface() {
                cairo_set_source_rgb(context, 0.12, 0.12, 0.12)
                cairo_paint(context)
                cairo_set_source_surface(context, surface.surface, 0, 0)
                cairo_paint(context)
                target.flush()
                let jpeg = try JPEGEncoder.encode(
                    pixels: scratch, width: size.width, height: size.height, bytesPerRow: bytesPerRow, format: .bgrx32, quality: 80)
                guard FileManager.default.createFile(atPath: path, contents: Data(jpeg)) else {
                    throw CLIError("cannot write \(path): is the temporary folder full?")
                }
                paths.append(path)
            } else {
                paths.append("")
            }
            if index % 16 == 0 { progress(index) }
        }
        progress(items.count)
        return ConventionalStore(paths: paths, pixelSize: size.width)
    }
}
#endif
