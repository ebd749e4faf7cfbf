import Foundation

/// The `info.json` of a IIIF Image API 3.0 service for a tiled image: the one document the static
/// export writes (level 0) and the tile server answers (level 2, with its limits and extras).
package enum IIIFInformation {
    /// What a level-2 service adds: the largest answer it makes, and the sizes it announces.
    package struct Level2: Sendable {
        package var maxWidth: Int
        package var maxHeight: Int
        package var maxArea: Int

        /// Limits of `maxWidth × maxHeight`, `maxArea` pixels.
        package init(maxWidth: Int, maxHeight: Int, maxArea: Int) {
            self.maxWidth = maxWidth
            self.maxHeight = maxHeight
            self.maxArea = maxArea
        }
    }

    /// The scale factors of the tiles: every level (full resolution first, each half the one
    /// before) down to the first that fits in one tile of `tileSide`.
    package static func scaleFactors(levelSizes: [(width: Int, height: Int)], tileSide: Int) -> [Int] {
        let count = (levelSizes.firstIndex { $0.width <= tileSide && $0.height <= tileSide } ?? levelSizes.count - 1) + 1
        return (0..<count).map { 1 << $0 }
    }

    /// The document of the service at `id` of a `width × height` image whose levels have
    /// `levelSizes`, tiles `tileSide` pixels square: level 0 without `level2`; with it, level 2
    /// with its limits, the whole-image size of every level within them (smallest first, what
    /// thumbnails ask for), and its extra qualities, format and feature.
    package static func document(id: String, width: Int, height: Int, levelSizes: [(width: Int, height: Int)], tileSide: Int, level2: Level2? = nil) throws -> [UInt8] {
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
            let profile: String
            let width: Int
            let height: Int
            let tiles: [Tile]
            var maxWidth: Int?
            var maxHeight: Int?
            var maxArea: Int?
            var sizes: [Size]?
            var extraQualities: [String]?
            var extraFormats: [String]?
            var extraFeatures: [String]?
            enum CodingKeys: String, CodingKey {
                case context = "@context", id, type, `protocol`, profile, width, height, tiles, maxWidth, maxHeight, maxArea, sizes,
                     extraQualities, extraFormats, extraFeatures
            }
        }
        var info = Info(id: id, profile: level2 == nil ? "level0" : "level2", width: width, height: height,
                        tiles: [Tile(width: tileSide, height: tileSide, scaleFactors: scaleFactors(levelSizes: levelSizes, tileSide: tileSide))])
        if let level2 {
            info.maxWidth = level2.maxWidth
            info.maxHeight = level2.maxHeight
            info.maxArea = level2.maxArea
            info.sizes = levelSizes.reversed()
                .filter { $0.width <= level2.maxWidth && $0.height <= level2.maxHeight && $0.width * $0.height <= level2.maxArea }
                .map { Size(width: $0.width, height: $0.height) }
            info.extraQualities = ["color", "gray", "bitonal"]
            info.extraFormats = ["webp"]
            info.extraFeatures = ["mirroring"]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(info)) + [0x0A]
    }
}
