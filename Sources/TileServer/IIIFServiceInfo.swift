import Foundation

/// The `info.json` of a IIIF Image API 3.0 service at compliance level 2, for a pyramid.
enum IIIFServiceInfo {
    /// The media type of the document (JSON-LD with the Image API's context as its profile).
    static let mediaType = "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\""
    /// The `Link` header naming the compliance level's profile.
    static let profileLink = "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\""

    /// The document for the service at `id` of a `width × height` image whose levels have
    /// `levelSizes` (full resolution first), tiles `tileSide` pixels square, within `limits`.
    static func document(id: String, width: Int, height: Int, levelSizes: [(width: Int, height: Int)], tileSide: Int, limits: IIIFLimits) throws -> [UInt8] {
        struct Tile: Encodable {
            let width: Int
            let height: Int
            let scaleFactors: [Int]
        }
        struct Size: Encodable {
            let width: Int
            let height: Int
        }
        struct Info: Encodable {
            let context = "http://iiif.io/api/image/3/context.json"
            let id: String
            let type = "ImageService3"
            let `protocol` = "http://iiif.io/api/image"
            let profile = "level2"
            let width: Int
            let height: Int
            let maxWidth: Int
            let maxHeight: Int
            let maxArea: Int
            let tiles: [Tile]
            let sizes: [Size]
            let extraQualities = ["color", "gray", "bitonal"]
            let extraFormats = ["webp"]
            let extraFeatures = ["mirroring"]
            enum CodingKeys: String, CodingKey {
                case context = "@context", id, type, `protocol`, profile, width, height, maxWidth, maxHeight, maxArea, tiles, sizes,
                     extraQualities, extraFormats, extraFeatures
            }
        }
        // Tiles at every level down to the first that fits in one tile (as the static export writes them);
        // whole-image sizes for every level within the limits, smallest first (thumbnails ask for these).
        let tileLevels = (levelSizes.firstIndex { $0.width <= tileSide && $0.height <= tileSide } ?? levelSizes.count - 1) + 1
        let sizes = levelSizes.reversed()
            .filter { $0.width <= limits.maxWidth && $0.height <= limits.maxHeight && $0.width * $0.height <= limits.maxArea }
            .map { Size(width: $0.width, height: $0.height) }
        let info = Info(id: id, width: width, height: height, maxWidth: limits.maxWidth, maxHeight: limits.maxHeight, maxArea: limits.maxArea,
                        tiles: [Tile(width: tileSide, height: tileSide, scaleFactors: (0..<tileLevels).map { 1 << $0 })], sizes: sizes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(info)) + [0x0A]
    }
}
