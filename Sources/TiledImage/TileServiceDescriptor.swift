import FICCore
import Foundation

/// What a remote tiled image says of itself — a Deep Zoom descriptor (`.dzi`) or a IIIF Image API
/// `info.json` (version 2 or 3) — checked and turned into levels and tile URLs.
///
/// Every field comes from outside and is checked before use: sizes, tile sizes, the overlap, the
/// scale factors and the level count are bounded so that no arithmetic overflows and no level list
/// grows without end; a IIIF `id` must be an `http(s)` URL; a descriptor over 1 MiB is refused
/// before it is parsed.
public struct TileServiceDescriptor: Sendable, Hashable {
    /// The service's protocol and what its tile URLs need.
    public enum Service: Sendable, Hashable {
        /// Deep Zoom: tiles at `…_files/LEVEL/COLUMN_ROW.FORMAT`, level numbers counting from 1 × 1.
        case deepZoom(filesURL: URL, format: String, overlap: Int)
        /// IIIF Image API `version` (2 or 3) at `id`: tiles at `id/X,Y,W,H/SIZE/0/default.jpg`.
        case iiif(id: URL, version: Int)
    }

    /// The service.
    public let service: Service
    /// Full-resolution width in pixels.
    public let width: Int
    /// Full-resolution height in pixels.
    public let height: Int
    /// Tile width in pixels (without overlap).
    public let tileWidth: Int
    /// Tile height in pixels (without overlap).
    public let tileHeight: Int
    /// The levels offered, full resolution first, each half the one before (odd sizes rounded up):
    /// index `k` is scale factor 2^k.
    public let levels: [TileLevelSize]

    /// One level's size and tile grid.
    public struct TileLevelSize: Sendable, Hashable {
        /// Width in pixels.
        public let width: Int
        /// Height in pixels.
        public let height: Int
        /// Tiles across.
        public let columns: Int
        /// Tiles down.
        public let rows: Int
    }

    /// The largest side accepted: 2^20 pixels (a terapixel image).
    public static let maximumSide = 1 << 20
    /// The tile sides accepted.
    public static let tileSides = 16...4096
    /// The largest descriptor read.
    public static let maximumDescriptorBytes = 1 << 20

    /// Parses the descriptor `bytes` fetched from `url` (a `.dzi` or an `info.json`, told apart by
    /// their content).
    ///
    /// - Throws: `ImageCacheError` `.corruptData` naming what is wrong, or `.dimensionsTooLarge`.
    public static func parse(_ bytes: [UInt8], from url: URL) throws -> TileServiceDescriptor {
        guard bytes.count <= maximumDescriptorBytes else {
            throw ImageCacheError(
                .corruptData, "the tile descriptor is \(bytes.count) bytes, over the \(maximumDescriptorBytes) accepted",
                path: url.absoluteString)
        }
        let start = bytes.first { !$0.isLeadingFiller }
        do {
            if start == UInt8(ascii: "{") { return try parseIIIF(bytes, from: url) }
            if start == UInt8(ascii: "<") { return try parseDeepZoom(String(decoding: bytes, as: UTF8.self), from: url) }
            throw ImageCacheError(.corruptData, "neither a Deep Zoom descriptor (XML) nor a IIIF info.json (JSON)")
        } catch let error as ImageCacheError where error.path == nil {
            throw ImageCacheError(error.code, error.message, path: url.absoluteString, underlying: error.underlying)
        }
    }

    /// The URL of tile (`column`, `row`) of `level` (0 = full resolution).
    ///
    /// - Precondition: the tile exists (`level` < `levels.count`, inside its grid).
    public func tileURL(level: Int, column: Int, row: Int) -> URL {
        let grid = levels[level]
        precondition(column >= 0 && column < grid.columns && row >= 0 && row < grid.rows, "no tile (\(column), \(row)) at level \(level)")
        switch service {
        case .deepZoom(let files, let format, _):
            let number = Self.deepZoomTopLevel(width: width, height: height) - level
            return files.appendingPathComponent("\(number)").appendingPathComponent("\(column)_\(row).\(format)")
        case .iiif(let id, let version):
            return IIIFTilePath.components(
                width: width, height: height, tileWidth: tileWidth, tileHeight: tileHeight, scale: 1 << level,
                column: column, row: row, version: version
            )
            .reduce(id) { $0.appendingPathComponent($1) }
        }
    }

    // MARK: Parsing

    private init(service: Service, width: Int, height: Int, tileWidth: Int, tileHeight: Int, levelCount: Int) {
        self.service = service
        self.width = width
        self.height = height
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        var levels: [TileLevelSize] = []
        var (w, h) = (width, height)
        for _ in 0..<levelCount {
            levels.append(
                TileLevelSize(width: w, height: h, columns: (w + tileWidth - 1) / tileWidth, rows: (h + tileHeight - 1) / tileHeight))
            (w, h) = ((w + 1) / 2, (h + 1) / 2)
        }
        self.levels = levels
    }

    /// The Deep Zoom number of the full-resolution level: the halvings down to 1 × 1.
    static func deepZoomTopLevel(width: Int, height: Int) -> Int {
        var top = 0
        while (1 << top) < max(width, height) { top += 1 }
        return top
    }

    private static func checkSize(_ width: Int?, _ height: Int?) throws -> (Int, Int) {
        guard let width, let height else { throw ImageCacheError(.corruptData, "the descriptor gives no width and height") }
        guard width >= 1, height >= 1 else { throw ImageCacheError(.corruptData, "the descriptor gives a size of \(width)×\(height)") }
        guard width <= maximumSide, height <= maximumSide else {
            throw ImageCacheError(
                .dimensionsTooLarge, "the descriptor gives a size of \(width)×\(height); each side may be at most \(maximumSide)")
        }
        return (width, height)
    }

    private static func checkTile(_ side: Int?, _ what: String) throws -> Int {
        guard let side, tileSides.contains(side) else {
            throw ImageCacheError(
                .corruptData,
                "the descriptor gives a tile \(what) of \(side.map(String.init) ?? "nothing"); \(tileSides.lowerBound)…\(tileSides.upperBound) are accepted"
            )
        }
        return side
    }

    /// A Deep Zoom descriptor: `<Image TileSize= Overlap= Format=>` with `<Size Width= Height=/>`.
    private static func parseDeepZoom(_ text: String, from url: URL) throws -> TileServiceDescriptor {
        guard let image = element("Image", in: text), let size = element("Size", in: text) else {
            throw ImageCacheError(.corruptData, "the Deep Zoom descriptor lacks its Image or Size element")
        }
        let (width, height) = try checkSize(size["Width"].flatMap { Int($0) }, size["Height"].flatMap { Int($0) })
        let tile = try checkTile(image["TileSize"].flatMap { Int($0) }, "size")
        guard let overlap = image["Overlap"].flatMap({ Int($0) }), overlap >= 0, overlap <= tile / 2 else {
            throw ImageCacheError(
                .corruptData, "the Deep Zoom descriptor gives an overlap of \(image["Overlap"] ?? "nothing") for tiles of \(tile)")
        }
        guard let format = image["Format"]?.lowercased(), ["jpg", "jpeg", "png", "webp"].contains(format) else {
            throw ImageCacheError(
                .corruptData,
                "the Deep Zoom descriptor gives a tile format of \(image["Format"] ?? "nothing"); jpg, jpeg, png and webp are read")
        }
        var base = url.deletingPathExtension()
        base = base.deletingLastPathComponent().appendingPathComponent(base.lastPathComponent + "_files")
        // Deep Zoom offers every level down to 1 × 1.
        let count = deepZoomTopLevel(width: width, height: height) + 1
        return TileServiceDescriptor(
            service: .deepZoom(filesURL: base, format: format, overlap: overlap), width: width, height: height,
            tileWidth: tile, tileHeight: tile, levelCount: count)
    }

    /// A IIIF Image API 2 or 3 `info.json`.
    private static func parseIIIF(_ bytes: [UInt8], from url: URL) throws -> TileServiceDescriptor {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw ImageCacheError(.corruptData, "the IIIF info.json is not valid JSON", underlying: error)
        }
        guard let info = object as? [String: Any] else { throw ImageCacheError(.corruptData, "the IIIF info.json is not a JSON object") }
        let context = (info["@context"] as? String) ?? ((info["@context"] as? [Any])?.compactMap { $0 as? String }.last) ?? ""
        let version =
            context.contains("/image/3/") ? 3 : context.contains("/image/2/") ? 2 : (info["type"] as? String == "ImageService3" ? 3 : 2)
        guard let idText = (info["id"] as? String) ?? (info["@id"] as? String), var id = URL(string: idText),
            let scheme = id.scheme?.lowercased(), scheme == "http" || scheme == "https", id.host != nil
        else {
            throw ImageCacheError(.corruptData, "the IIIF info.json gives no http(s) id")
        }
        if idText.hasSuffix("/") { id = URL(string: String(idText.dropLast()))! }
        let (width, height) = try checkSize(integer(info["width"]), integer(info["height"]))
        guard let tiles = (info["tiles"] as? [Any])?.first as? [String: Any] else {
            throw ImageCacheError(.corruptData, "the IIIF info.json offers no tiles")
        }
        let tileWidth = try checkTile(integer(tiles["width"]), "width")
        let tileHeight = try checkTile(integer(tiles["height"]) ?? tileWidth, "height")
        let factors = (tiles["scaleFactors"] as? [Any])?.compactMap(integer) ?? [1]
        // Levels 2^0, 2^1, … as long as every factor is offered; at most to 1 × 1.
        let available = Set(factors)
        var count = 0
        while count <= deepZoomTopLevel(width: width, height: height), available.contains(1 << count) { count += 1 }
        guard count > 0 else { throw ImageCacheError(.corruptData, "the IIIF info.json's tiles have no scale factor 1") }
        return TileServiceDescriptor(
            service: .iiif(id: id, version: version), width: width, height: height,
            tileWidth: tileWidth, tileHeight: tileHeight, levelCount: count)
    }

    /// A JSON number that is a whole number within Int's range.
    private static func integer(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// The attributes of the first `<name …>` element of `text` (double or single quotes).
    private static func element(_ name: String, in text: String) -> [String: String]? {
        guard let open = text.range(of: "<\(name)", options: [.caseInsensitive]),
            let close = text[open.upperBound...].firstIndex(of: ">")
        else { return nil }
        var attributes: [String: String] = [:]
        var rest = text[open.upperBound..<close]
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].split(whereSeparator: { $0.isWhitespace }).last.map(String.init) ?? ""
            var after = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = after.first, quote == "\"" || quote == "'" else { break }
            after = after.dropFirst()
            guard let end = after.firstIndex(of: quote) else { break }
            attributes[key] = String(after[..<end])
            rest = after[after.index(after: end)...]
        }
        return attributes
    }
}

private extension UInt8 {
    /// White space, or a byte of a UTF-8 byte-order mark, before a descriptor's first character.
    var isLeadingFiller: Bool {
        self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D || self == 0xEF || self == 0xBB || self == 0xBF
    }
}
