import Foundation
import ImageTable
import Logging

/// One format and its open table.
final class FormatTable: Sendable {
    let format: ImageFormat
    let table: ImageTable
    let keys: KeyMemo

    init(format: ImageFormat, namespace: CacheNamespace, fileExtension: String, options: TableOpenOptions, keys: KeyMemo, logger: Logger) throws {
        self.format = format
        self.keys = keys
        let p = format.pixelSize
        var tableOptions = options
        tableOptions.readOnly = namespace.isReadOnly
        table = try ImageTable(directory: namespace.folder, name: format.name + fileExtension, configuration: TableConfiguration(
            pixelWidth: p.width, pixelHeight: p.height, bytesPerPixel: format.style.bytesPerPixel,
            maximumCount: format.maximumCount, identity: format.identity), options: tableOptions, logger: logger)
    }

    /// Draws `source` for `entity` straight into a new slot of the table. A draw that fails —
    /// the entity's method throws, or cairo records an error — stores nothing.
    ///
    /// - Throws: ``ImageCacheError`` `.drawingFailed` (the cause says why), or a storage failure.
    func draw(_ entity: some ImageEntity, from source: DecodedImage) throws -> CachedImage {
        let p = format.pixelSize
        let bytesPerRow = table.configuration.bytesPerRow
        let format = self.format
        let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
        do {
            let stored = try table.insert(entity: entityKey, source: sourceKey, label: entity.entityID) { pixels in
                let canvas = try ImageCanvas(pixels: pixels.baseAddress!, pixelWidth: p.width, pixelHeight: p.height, bytesPerRow: bytesPerRow, pixelFormat: format.style, scale: CGFloat(format.scale))
                canvas.clear()
                try entity.draw(source, format: format, canvas: canvas)
                try canvas.checkStatus()
                canvas.finish()
            }
            return CachedImage(table: self, storage: stored)
        } catch let error as ImageCacheError where error.code == .invalidArgument {
            throw ImageCacheError(.drawingFailed, "drawing the image failed", format: format.name, underlying: error)
        } catch {
            throw ImageCacheError.wrap(error, format: format.name, code: .drawingFailed)
        }
    }
}
