import Foundation
import ImageTable

/// The pixel layouts a format can store: 32-bit BGRA premultiplied, 32-bit BGR (no alpha),
/// 16-bit RGB 5-6-5 and 8-bit gray.
public typealias PixelStyle = PixelFormat

/// A kind of image the cache stores: its size, depth and how many of it to keep.
///
/// Every image of a format has the same pixel size (``size`` × ``scale``) and is stored in the
/// format's own table file. Formats that share a ``family`` are drawn from one decoded source
/// image. Changing any field of a format invalidates its stored images the next time the cache
/// opens.
public struct ImageFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The unique name: letters, digits, `.`, `-` and `_`. It names the table file.
    public let name: String
    /// Formats of one family are drawn from one decoded source. Defaults to the name.
    public let family: String
    /// The size in points.
    public let size: CGSize
    /// Pixels per point.
    public let scale: Double
    /// How pixels are stored.
    public let style: PixelStyle
    /// The most images of this format to keep; the least recently used is evicted beyond it.
    public let maximumCount: Int

    /// Creates a format.
    ///
    /// - Throws: `ImageCacheError` with code `.invalidFormat` when the name has characters
    ///   other than letters, digits, `.`, `-` and `_`, the size or scale is not a positive finite
    ///   number, the pixel size passes `TableConfiguration.maximumPixelDimension`, or the count
    ///   is not between 1 and `TableConfiguration.maximumEntryCount`.
    public init(
        name: String, family: String? = nil, size: CGSize, scale: Double = 1, style: PixelStyle = .bgra32Premultiplied, maximumCount: Int
    ) throws {
        try Self.validateName(name, what: "format name")
        if let family { try Self.validateName(family, what: "family name") }
        guard size.width > 0, size.height > 0, size.width.isFinite, size.height.isFinite else {
            throw ImageCacheError(.invalidFormat, "size must be positive, not \(size.width)×\(size.height)", format: name)
        }
        guard scale > 0, scale.isFinite else {
            throw ImageCacheError(.invalidFormat, "scale must be positive, not \(scale)", format: name)
        }
        // Checked in floating point first, so that no size, however absurd, reaches an integer conversion.
        let limit = Double(TableConfiguration.maximumPixelDimension)
        let w = (Double(size.width) * scale).rounded(.up), h = (Double(size.height) * scale).rounded(.up)
        guard w <= limit, h <= limit else {
            throw ImageCacheError(
                .invalidFormat, "\(size.width)×\(size.height) points at scale \(scale) is more than \(Int(limit)) pixels in a direction",
                format: name)
        }
        guard (1...TableConfiguration.maximumEntryCount).contains(maximumCount) else {
            throw ImageCacheError(
                .invalidFormat, "maximum count must be between 1 and \(TableConfiguration.maximumEntryCount), not \(maximumCount)",
                format: name)
        }
        self.name = name
        self.family = family ?? name
        self.size = size
        self.scale = scale
        self.style = style
        self.maximumCount = maximumCount
    }

    private enum CodingKeys: String, CodingKey {
        case name, family, size, scale, style, maximumCount
    }

    /// Decodes a format, checking it as ``init(name:family:size:scale:style:maximumCount:)`` does:
    /// a stored format is input like any other.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            name: try c.decode(String.self, forKey: .name), family: try c.decodeIfPresent(String.self, forKey: .family),
            size: try c.decode(CGSize.self, forKey: .size), scale: try c.decode(Double.self, forKey: .scale),
            style: try c.decode(PixelStyle.self, forKey: .style), maximumCount: try c.decode(Int.self, forKey: .maximumCount))
    }

    static func validateName(_ name: String, what: String) throws {
        let allowed = name.unicodeScalars.allSatisfy { s in
            (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "." || s == "-" || s == "_"
        }
        guard !name.isEmpty, name.count <= 128, allowed, name != ".", name != ".." else {
            throw ImageCacheError(
                .invalidFormat, "\(what) '\(name)' is invalid: use 1 to 128 letters, digits, '.', '-' or '_'", format: name)
        }
    }

    /// The size in pixels: points × scale, rounded up.
    public var pixelSize: PixelSize {
        PixelSize(width: Int((size.width * scale).rounded(.up)), height: Int((size.height * scale).rounded(.up)))
    }

    /// A canonical text of every field; a table written under another identity is discarded.
    var identity: String {
        "fic-format-v1;name=\(name);family=\(family);w=\(size.width);h=\(size.height);scale=\(scale);style=\(style.rawValue);max=\(maximumCount)"
    }

    /// A one-line description, for logs and the command-line tool.
    public var description: String {
        let p = pixelSize
        return "\(name) (family \(family)): \(p.width)×\(p.height) px \(style.rawValue), max \(maximumCount)"
    }
}
