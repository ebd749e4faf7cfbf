import FICCore
import Foundation
import ImageCodec

/// The layouts of a static tile tree.
public enum StaticTileLayout: String, Sendable, CaseIterable {
    /// Deep Zoom: `image.dzi` and `image_files/LEVEL/COLUMN_ROW.jpg`, level 0 being 1 × 1 and
    /// the last full resolution (OpenSeadragon's `tileSources: "…/image.dzi"`).
    case dzi
    /// IIIF Image API 3.0 at level 0: `iiif/info.json` and a JPEG per tile at its canonical URL,
    /// `iiif/X,Y,W,H/W',H'/0/default.jpg`, for every scale factor down to the one whose level fits
    /// in one tile (OpenSeadragon's or Mirador's `…/iiif/info.json`).
    case iiif
}

/// What an export wrote.
public struct StaticTileExportSummary: Sendable, Hashable {
    /// The tree's top file: the `.dzi` descriptor or the `info.json`.
    public var descriptorPath: String
    /// Tiles written.
    public var tiles: Int
    /// Bytes of the tiles and the descriptor.
    public var bytes: Int
    /// Zoom levels.
    public var levels: Int
}

/// Writes a pyramid as a static tree of JPEG tiles that any web server, object store or CDN
/// serves as it is (what `vips dzsave` writes, and its file names), so that a site needs no
/// process of this package to show the image.
///
/// Tiles are 256 × 256 without overlap, edge tiles cropped to the image; alpha is flattened over
/// black. The tree is new: an existing `image.dzi`, `image_files` or `iiif` in the folder is
/// refused, never overwritten. Files are readable by everyone (0644, folders 0755, as the umask
/// allows), for the web server's user.
public enum StaticTileExport {
    /// The tiles' side in pixels.
    public static let tileSide = PyramidGeometry.tileSide

    /// Writes `pyramid` in `layout` into `folder` (created when missing).
    ///
    /// - Parameters:
    ///   - pyramid: the pyramid to export.
    ///   - layout: Deep Zoom or IIIF.
    ///   - folder: where the tree is written: `image.dzi` and `image_files`, or `iiif`.
    ///   - iiifID: the URL the `iiif` folder will be served at (the `id` of its `info.json`,
    ///     which viewers resolve tile URLs against); by default its `file://` URL.
    ///   - quality: the JPEG quality (1…100).
    /// - Throws: `ImageCacheError`: `EEXIST` when the tree exists already, I/O errors with their
    ///   path, or the pyramid's read errors.
    public static func write(
        _ pyramid: TilePyramid, layout: StaticTileLayout, into folder: String, iiifID: String? = nil, quality: Int = 85
    ) throws -> StaticTileExportSummary {
        let levels = try StaticLevels(pyramid)
        let directory = try Directory.open(folder, create: true)
        let (fullWidth, fullHeight) = (pyramid.geometry.width, pyramid.geometry.height)
        var summary = StaticTileExportSummary(descriptorPath: "", tiles: 0, bytes: 0, levels: 0)
        switch layout {
        case .dzi:
            // DZI numbers levels from 1 × 1 (0) up to full resolution.
            let top = levels.levels.count - 1
            let files = try newTree(in: directory, "image_files", layout)
            for index in levels.levels.indices {
                let folder = try files.makePublishedFolder(String(top - index))
                let written = try encodeLevel(index, of: levels, quality: quality) { column, row in (folder, "\(column)_\(row).jpg") }
                summary.tiles += written.tiles
                summary.bytes += written.bytes
            }
            let descriptor = Array(dziDescriptor(width: fullWidth, height: fullHeight).utf8)
            try directory.writePublishedFile("image.dzi", descriptor)
            summary.bytes += descriptor.count
            summary.levels = levels.levels.count
            summary.descriptorPath = directory.child("image.dzi")
        case .iiif:
            let tree = try newTree(in: directory, "iiif", layout)
            // Every scale factor down to the first level that fits in one tile.
            let levelSizes = levels.levels.indices.map(levels.size(of:))
            let count = IIIFInformation.scaleFactors(levelSizes: levelSizes, tileSide: tileSide).count
            for index in 0..<count {
                let written = try encodeLevel(index, of: levels, quality: quality) { column, row in
                    let path = IIIFTilePath.components(
                        width: fullWidth, height: fullHeight, tileWidth: tileSide, tileHeight: tileSide,
                        scale: 1 << index, column: column, row: row, version: 3)
                    let size = try regionFolder(in: tree, path[0]).makePublishedFolder(path[1])
                    return (try size.makePublishedFolder(path[2]), path[3])
                }
                summary.tiles += written.tiles
                summary.bytes += written.bytes
            }
            let id = iiifID ?? URL(fileURLWithPath: tree.path).absoluteString
            let info = try IIIFInformation.document(
                id: id, width: fullWidth, height: fullHeight, levelSizes: levelSizes, tileSide: tileSide)
            try tree.writePublishedFile("info.json", info)
            summary.bytes += info.count
            summary.levels = count
            summary.descriptorPath = tree.child("info.json")
        }
        return summary
    }

    /// Encodes every tile of `level` and writes it where `place` says (its folder, made there,
    /// and file name), on one thread per core: tiles of one level never share a folder.
    /// Returns the tiles and bytes written.
    private static func encodeLevel(
        _ level: Int, of levels: StaticLevels, quality: Int,
        place: @escaping @Sendable (_ column: Int, _ row: Int) throws -> (Directory, String)
    ) throws -> (tiles: Int, bytes: Int) {
        let (width, height) = levels.size(of: level)
        let columns = tiles(width), count = columns * tiles(height)
        struct Progress {
            var next = 0
            var bytes = 0
            var failure: (any Error)?
        }
        let progress = LockedBox(Progress())
        let threads = max(1, min(count, ProcessInfo.processInfo.activeProcessorCount, 8))
        WorkerThread.runTogether(threads, name: "fic-export") { _ in
            guard let buffer = try? TileBuffer() else {
                progress.withLockedValue { $0.failure = $0.failure ?? ImageCacheError(.overMemoryBudget, "no memory for a tile buffer") }
                return
            }
            while true {
                let index = progress.withLockedValue { p -> Int? in
                    guard p.failure == nil, p.next < count else { return nil }
                    defer { p.next += 1 }
                    return p.next
                }
                guard let index else { return }
                do {
                    let (column, row) = (index % columns, index / columns)
                    // A pyramidal TIFF's whole JPEG tile is copied as it is stored; others are encoded.
                    let bytes =
                        try levels.storedJPEG(level: level, column: column, row: row)
                        ?? levels.withTile(level: level, column: column, row: row, buffer: buffer) { pixels, bytesPerRow, width, height in
                            try JPEGEncoder.encode(
                                pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, format: .bgra32Premultiplied,
                                quality: quality)
                        }
                    let (folder, name) = try place(column, row)
                    try folder.writePublishedFile(name, bytes)
                    progress.withLockedValue { $0.bytes += bytes.count }
                } catch {
                    progress.withLockedValue { $0.failure = $0.failure ?? error }
                    return
                }
            }
        }
        let done = progress.withLockedValue { $0 }
        if let failure = done.failure { throw failure }
        return (count, done.bytes)
    }

    /// The tree's new top folder `name`; one that exists is refused, naming what to do.
    private static func newTree(in directory: Directory, _ name: String, _ layout: StaticTileLayout) throws -> Directory {
        do {
            return try directory.makePublishedFolder(name)
        } catch let error as ImageCacheError where error.errno == .fileExists {
            throw ImageCacheError(
                .invalidArgument,
                "the folder already holds a \(layout.rawValue) tree (\(name)), which is never written over; remove it or choose another folder",
                path: directory.child(name), errno: .fileExists)
        }
    }

    /// Tiles across `pixels`.
    private static func tiles(_ pixels: Int) -> Int { (pixels + tileSide - 1) / tileSide }

    /// The region folder `name` of the IIIF tree, made or opened: a region clipped by the image's
    /// edge can be the same rectangle at two scale factors (a 256 × 600 image's `0,512,256,88` at
    /// 1 and 2), each with a size folder of its own.
    private static func regionFolder(in tree: Directory, _ name: String) throws -> Directory {
        if try tree.status(of: name) != nil { return try tree.subdirectory(name, create: false) }
        return try tree.makePublishedFolder(name)
    }

    /// The Deep Zoom descriptor of a `width × height` image of 256-pixel JPEG tiles.
    package static func dziDescriptor(width: Int, height: Int) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="jpg" Overlap="0" TileSize="\(tileSide)">
          <Size Width="\(width)" Height="\(height)"/>
        </Image>

        """
    }
}
