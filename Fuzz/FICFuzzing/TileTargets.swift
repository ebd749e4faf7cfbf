import Foundation
import TileServer
import TiledImage

/// What the tile server and the remote tile viewer parse: Deep Zoom and IIIF descriptors, and
/// the request paths of `fic serve`.
enum TileTargets {
    static let all: [FuzzTarget] = [descriptor, route]

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
}
