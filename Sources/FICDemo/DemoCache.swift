#if Tool
import FICCommandLine
import FastImageCache
import Foundation

/// The demo's cache: the photos ingested once into both formats, then read back synchronously
/// as each cell appears.
package struct DemoCache {
    package static let namespace = "demo"
    package let directory: String
    package let formats: [ImageFormat]
    package let entities: [DemoPhoto]

    /// Stores every photo in both formats, drawing both from one decode per photo, then closes
    /// the cache so that the scroll starts from files, as an app launched later would.
    package static func ingest(_ photos: [DemoSource], directory: String) throws -> DemoCache {
        let formats = try DemoFormats.make(count: photos.count)
        let cache = try CacheOpener.open(directory: directory, namespace: namespace, formats: formats)
        defer { cache.close() }
        try cache.reset()
        var entities: [DemoPhoto] = []
        for photo in photos {
            let bytes = try ImageBytes(contentsOf: photo.path)
            let entity = DemoPhoto(
                entityID: photo.name, sourceImageID: FileEntity.contentHash(bytes), url: URL(fileURLWithPath: photo.path))
            try cache.storeImages(from: .bytes(bytes), for: entity, releasingPages: true)
            entities.append(entity)
        }
        try cache.synchronize()
        return DemoCache(directory: directory, formats: formats, entities: entities)
    }

    /// Opens the ingested cache for reading.
    package func open() throws -> ImageCache {
        try CacheOpener.open(directory: directory, namespace: Self.namespace, formats: formats)
    }

    /// The thumbnail of photo `index`, straight from the mapped table.
    package func cell(photo index: Int, in cache: ImageCache) -> LiveCell? {
        guard let image = cache.cachedImage(for: entities[index], format: DemoFormats.thumb),
            let surface = try? image.makeCairoSurface()
        else { return nil }
        return LiveCell(surface: surface, owner: nil)  // the surface keeps the image alive
    }
}
#endif
