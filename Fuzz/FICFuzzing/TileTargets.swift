import Foundation
import TileServer
import TiledImage

/// What the tile server and the remote tile viewer parse: Deep Zoom and IIIF descriptors, the
/// request paths of `fic serve`, and pyramidal TIFF files.
enum TileTargets {
    static let all: [FuzzTarget] = [descriptor, route, pyramidTIFF]

    /// A Deep Zoom `.dzi` (XML) or IIIF `info.json` (JSON) document, read into sizes, levels and
    /// tile URLs; the first byte chooses which URL it came from (and so which kind it is taken for).
    static let descriptor = FuzzTarget(name: "descriptor", summary: "Deep Zoom and IIIF descriptors of remote tiled images") { bytes in
        guard let first = bytes.first else { return }
        let url = URL(string: first & 1 == 0 ? "https://example.com/tiles/photo.dzi" : "https://example.com/iiif/photo/info.json")!
        guard let found = try? TileServiceDescriptor.parse(Array(bytes[1...]), from: url) else { return }
        _ = found.tileURL(level: 0, column: 0, row: 0)
    }

    /// A request path of `fic serve`: routed, and an image request resolved against an image of
    /// a size the first four bytes choose (1 to 65536 on each side).
    static let route = FuzzTarget(name: "route", summary: "the IIIF and Deep Zoom request paths of fic serve") { bytes in
        guard bytes.count >= 4 else { return }
        let width = 1 + Int(bytes[0]) << 8 | Int(bytes[1])
        let height = 1 + Int(bytes[2]) << 8 | Int(bytes[3])
        let path = String(decoding: bytes[4...], as: UTF8.self)
        guard case .iiifImage(_, let region, let size, let rotation, let qualityAndFormat)? = try? TileServerRoute.parse(path) else {
            return
        }
        _ = try? IIIFImageRequest.parse(
            region: region, size: size, rotation: rotation, qualityAndFormat: qualityAndFormat,
            imageWidth: width, imageHeight: height)
    }

    /// A pyramidal TIFF: its header and IFD chain read into levels, then the first and last tile
    /// of each level read and decoded (at most 8 levels, so that one input stays within the
    /// time bound).
    static let pyramidTIFF = FuzzTarget(
        name: "pyramid-tiff", summary: "pyramidal TIFF files: the IFD chain, tile arrays and tiles", seeds: pyramidTIFFSeeds
    ) { bytes in
        guard let reader = try? PyramidTIFFReader(source: PyramidTIFFMemorySource(Array(bytes))) else { return }
        FuzzBounds.checking {
            for level in reader.levels.prefix(8) {
                for (column, row) in [(0, 0), (level.columns - 1, level.rows - 1)] {
                    _ = try? reader.tileBytes(level: level.index, column: column, row: row)
                    _ = try? reader.decodeTile(level: level.index, column: column, row: row)
                }
            }
        }
    }

    /// Small pyramids the package writes: opaque in each compression, and with alpha.
    static func pyramidTIFFSeeds() throws -> [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        let cases: [(String, PyramidTIFFCompression, Bool)] = [
            ("jpeg", .jpeg, false), ("deflate", .deflate, false), ("none", .none, false), ("deflate-alpha", .deflate, true)
        ]
        for (name, compression, alpha) in cases {
            let geometry = try PyramidGeometry(width: 300, height: 200)
            let path = Scratch.path("seed-\(name).tif")
            let writer = try PyramidTIFFWriter(path: path, geometry: geometry, compression: compression, hasAlpha: alpha)
            let tile = [UInt8](
                (0..<PyramidGeometry.tileBytes).map { i in
                    i % 4 == 3 ? (alpha ? UInt8(truncatingIfNeeded: i / 1024) : 255) : UInt8(truncatingIfNeeded: (i / 4) * 7 + i % 4 * 50)
                })
            for level in geometry.levels {
                for row in 0..<level.rows {
                    for column in 0..<level.columns {
                        try tile.withUnsafeBytes { try writer.write(level: level.index, column: column, row: row, pixels: $0) }
                    }
                }
            }
            try writer.finish()
            seeds.append(("\(name).tif", Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
            try? FileManager.default.removeItem(atPath: path)
        }
        return seeds
    }
}
