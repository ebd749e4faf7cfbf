#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import ImageCodec

/// The conventional approach the original demo compared against: each photo pre-rendered once
/// as a quality-0.8 JPEG thumbnail file, decoded again each time its cell appears, with no
/// memory cache.
package struct ConventionalStore {
    /// One JPEG thumbnail per photo, in photo order.
    package let paths: [String]
    package let pixelSize: Int

    /// A store of the thumbnails at `paths`, each `pixelSize` pixels square.
    package init(paths: [String], pixelSize: Int) {
        self.paths = paths
        self.pixelSize = pixelSize
    }

    /// Renders a thumbnail of `pixelSize` pixels per side (`points` × scale) for every photo into
    /// `folder`. Photos that cannot be decoded are left out and reported in `refused`.
    package static func build(photos: [DemoSource], folder: String, points: Double, scale: Double) throws -> (
        store: ConventionalStore, kept: [DemoSource], refused: [(DemoSource, String)]
    ) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let side = Int((points * scale).rounded(.up))
        let bytesPerRow = side * 4
        let pixels = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * side, alignment: 64)
        defer { pixels.deallocate() }
        var paths: [String] = [], kept: [DemoSource] = [], refused: [(DemoSource, String)] = []
        for photo in photos {
            let decoded: DecodedImage
            do {
                decoded = try ImageDecoder.decode(
                    contentsOf: photo.path, options: DecodingOptions(targetSize: PixelSize(width: side, height: side)))
            } catch let error as ImageCacheError {
                refused.append((photo, error.message))
                continue
            }
            let canvas = try ImageCanvas(
                pixels: pixels, pixelWidth: side, pixelHeight: side, bytesPerRow: bytesPerRow, pixelFormat: .bgrx32, scale: CGFloat(scale))
            canvas.clear()
            canvas.draw(decoded, in: CGRect(x: 0, y: 0, width: points, height: points), contentMode: .aspectFill)
            canvas.finish()
            try canvas.checkStatus()
            let jpeg = try JPEGEncoder.encode(
                pixels: pixels, width: side, height: side, bytesPerRow: bytesPerRow, format: .bgrx32, quality: 80)
            let path = (folder as NSString).appendingPathComponent(String(format: "%05d.jpg", paths.count))
            guard FileManager.default.createFile(atPath: path, contents: Data(jpeg)) else {
                throw CLIError("cannot write \(path): check that the --out folder is writable")
            }
            paths.append(path)
            kept.append(photo)
        }
        return (ConventionalStore(paths: paths, pixelSize: side), kept, refused)
    }

    /// Decodes the thumbnail of photo `index`, as a cell appearing on screen did.
    package func cell(photo index: Int) -> LiveCell? {
        guard let decoded = try? ImageDecoder.decode(contentsOf: paths[index]),
            let surface = try? CairoImageSurface(
                pixels: decoded.baseAddress, width: decoded.width, height: decoded.height, bytesPerRow: decoded.bytesPerRow,
                format: decoded.pixelFormat)
        else { return nil }
        return LiveCell(surface: surface, owner: decoded)
    }

    /// Bytes the thumbnails occupy on disk (allocated blocks).
    package var diskBytes: Int { paths.reduce(0) { $0 + DiskUsage.allocatedBytes($1) } }
}

/// A photo the demo shows.
package struct DemoSource {
    package let path: String
    package let name: String

    /// The photo at `path`, called `name`.
    package init(path: String, name: String) {
        self.path = path
        self.name = name
    }
}

/// Disk use of files.
package enum DiskUsage {
    /// The bytes of disk blocks `path` occupies.
    package static func allocatedBytes(_ path: String) -> Int {
        (try? fileStatus(atPath: path))?.diskBytes ?? 0
    }
}
#endif
