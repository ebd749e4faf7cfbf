#if Server
import FICCore

/// What a request path asks the tile server for, read from the raw path: every segment is
/// percent-decoded on its own (so an encoded `/` stays inside its segment, and a name holding
/// one names no pyramid), and nothing beyond the shapes below is accepted.
public enum TileServerRoute: Sendable, Hashable {
    /// `/`: the list of pyramids.
    case index
    /// `/iiif/3/NAME`: redirected to its `info.json`.
    case iiifBase(name: String)
    /// `/iiif/3/NAME/info.json`.
    case iiifInfo(name: String)
    /// `/iiif/3/NAME/{region}/{size}/{rotation}/{quality}.{format}`.
    case iiifImage(name: String, region: String, size: String, rotation: String, qualityAndFormat: String)
    /// `/dzi/NAME.dzi`.
    case dziDescriptor(name: String)
    /// `/dzi/NAME_files/{level}/{column}_{row}.jpg`.
    case dziTile(name: String, level: Int, column: Int, row: Int)
    /// `/view/NAME`: the viewer page.
    case viewer(name: String)

    /// The longest path accepted, in bytes.
    public static let maximumPathBytes = 2048

    /// The route of `path` (the URL's path, without the query, relative to where the routes are
    /// mounted), or nil when it names nothing this server serves (a 404).
    ///
    /// - Throws: `ImageCacheError` `.invalidArgument` for a path that is not a valid URL path
    ///   (too long, a bad percent escape, a control byte): a 400.
    public static func parse(_ path: String) throws -> TileServerRoute? {
        guard path.utf8.count <= maximumPathBytes else {
            throw ImageCacheError(.invalidArgument, "the path is longer than \(maximumPathBytes) bytes")
        }
        guard path.hasPrefix("/") else { throw ImageCacheError(.invalidArgument, "the path does not start with '/'") }
        var raw = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if raw.last == "" { raw.removeLast() }
        let segments = try raw.map(decode)
        switch segments.first {
        case nil:
            return .index
        case "iiif":
            guard segments.count >= 3, segments[1] == "3" else { return nil }
            let name = segments[2]
            switch segments.count {
            case 3: return .iiifBase(name: name)
            case 4: return segments[3] == "info.json" ? .iiifInfo(name: name) : nil
            case 7:
                return .iiifImage(name: name, region: segments[3], size: segments[4], rotation: segments[5], qualityAndFormat: segments[6])
            default: return nil
            }
        case "dzi":
            if segments.count == 2, segments[1].hasSuffix(".dzi") {
                return .dziDescriptor(name: String(segments[1].dropLast(4)))
            }
            guard segments.count == 4, segments[1].hasSuffix("_files"), segments[3].hasSuffix(".jpg"),
                let level = number(segments[2])
            else { return nil }
            let cell = segments[3].dropLast(4).split(separator: "_", omittingEmptySubsequences: false)
            guard cell.count == 2, let column = number(cell[0]), let row = number(cell[1]) else { return nil }
            return .dziTile(name: String(segments[1].dropLast(6)), level: level, column: column, row: row)
        case "view":
            return segments.count == 2 ? .viewer(name: segments[1]) : nil
        default:
            return nil
        }
    }

    /// A small non-negative decimal number (at most 7 digits), or nil.
    private static func number(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 7, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// `segment` with its `%XX` escapes decoded; a bad escape, a control byte or invalid UTF-8 is refused.
    private static func decode(_ segment: Substring) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count)
        var iterator = segment.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw ImageCacheError(.invalidArgument, "the path has a '%' that is not followed by two hexadecimal digits")
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw ImageCacheError(.invalidArgument, "the path holds a control character")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ImageCacheError(.invalidArgument, "the path is not valid UTF-8 once decoded")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
#endif
