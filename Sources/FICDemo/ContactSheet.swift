#if Tool
import FastImageCache

/// A sheet of the first medium images, showing their rounded corners over a background.
package enum ContactSheet {
    /// Writes up to six medium images of `entities`, three per row, as a PNG at `path`.
    package static func writeMedium(cache: ImageCache, entities: [DemoPhoto], to path: String) throws {
        let images = entities.prefix(6).compactMap { cache.cachedImage(for: $0, format: DemoFormats.medium) }
        guard let first = images.first else { return }
        let gap = 20, side = first.width, columns = min(3, images.count)
        let rows = (images.count + columns - 1) / columns
        let sheet = try FrameBuffer(width: columns * side + (columns + 1) * gap, height: rows * side + (rows + 1) * gap)
        sheet.fillBackground(x: 0, y: 0, width: sheet.width, height: sheet.height)
        for (i, image) in images.enumerated() {
            sheet.draw(try image.makeCairoSurface(), x: gap + i % columns * (side + gap), y: gap + i / columns * (side + gap))
        }
        try sheet.writePNG(to: path)
    }
}
#endif
