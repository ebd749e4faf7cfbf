import Foundation

/// The `info.json` of a IIIF Image API 3.0 service for a tiled image: the one document the static
/// export writes (level 0) and the tile server answers (level 2, with its limits and extras).
package enum IIIFInformation {
    /// What a level-2 service adds: the largest answer it makes, and the sizes it announces.
    package struct Level2: Sendable {
        package var maxWidth: Int
        package var maxHeight: Int
        package var maxArea: Int
        /// Whether `^` sizes may enlarge a region (the `sizeUpscaling` extra feature).
        package var sizeUpscaling: Bool

        /// Limits of `maxWidth × maxHeight`, `maxArea` pixels.
        package init(maxWidth: Int, maxHeight: Int, maxArea: Int, sizeUpscaling: Bool = false) {
            self.maxWidth = maxWidth
            self.maxHeight = maxHeight
            self.maxArea = maxArea
            self.sizeUpscaling = sizeUpscaling
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
    /// thumbnails ask for), its tiles only when the largest is within them too (the Image API
    /// requires it of both), and its extra qualities, format and features.
    package static func document(
        id: String, width: Int, height: Int, levelSizes: [(width: Int, height: Int)], tileSide: Int, level2: Level2? = nil
    ) throws -> [UInt8] {
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
            var tiles: [Tile]?
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
        var info = Info(
            id: id, profile: level2 == nil ? "level0" : "level2", width: width, height: height,
            tiles: [Tile(width: tileSide, height: tileSide, scaleFactors: scaleFactors(levelSizes: levelSizes, tileSide: tileSide))])
        if let level2 {
            info.maxWidth = level2.maxWidth
            info.maxHeight = level2.maxHeight
            info.maxArea = level2.maxArea
            let within = { (w: Int, h: Int) in w <= level2.maxWidth && h <= level2.maxHeight && w * h <= level2.maxArea }
            info.sizes = levelSizes.reversed().filter(within).map { Size(width: $0.width, height: $0.height) }
            // The largest tile answer is a full tile, or the whole image when it is smaller.
            if !within(min(tileSide, width), min(tileSide, height)) { info.tiles = nil }
            info.extraQualities = ["color", "gray", "bitonal"]
            info.extraFormats = ["webp"]
            // The Image API asks a server with sizeUpscaling to give maxWidth or maxArea: both are.
            info.extraFeatures = ["mirroring"] + (level2.sizeUpscaling ? ["sizeUpscaling"] : [])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(info)) + [0x0A]
    }
}
