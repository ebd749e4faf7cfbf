#if Tool
import FastImageCache
import Foundation

/// One `--format NAME:WxH[@SCALE][:STYLE][:max=N]` argument: a format's size in points, scale,
/// pixel style and maximum count.
package struct FormatSpec: Codable, Hashable {
    /// The format name (letters, digits, `.`, `-`, `_`).
    package var name: String
    /// Width in points.
    package var width: Double
    /// Height in points.
    package var height: Double
    /// Pixels per point.
    package var scale: Double
    /// `bgra`, `bgrx`, `rgb565` or `gray8`.
    package var style: String
    /// The most images the format keeps.
    package var maximumCount: Int

    /// The style names accepted on the command line.
    package static let styleNames = PixelStyle.allCases.map(\.rawValue)

    /// Parses a `--format` argument.
    ///
    /// - Throws: ``CLIError`` with the usage status, saying what is wrong and the expected shape.
    package init(parsing text: String) throws {
        let shape = "NAME:WxH[@SCALE][:STYLE][:max=N], e.g. thumb:75x75@2:rgb565:max=1000"
        func bad(_ why: String) -> CLIError {
            CLIError("bad --format '\(text)': \(why); expected \(shape)", status: ExitStatus.usage)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty else { throw bad("missing the name or the size") }
        name = parts[0]
        var size = Substring(parts[1])
        scale = 1
        if let at = size.firstIndex(of: "@") {
            var scaleText = size[size.index(after: at)...]
            if scaleText.hasSuffix("x") { scaleText = scaleText.dropLast() }
            guard let s = Double(scaleText), s > 0, s.isFinite else { throw bad("scale '\(scaleText)' is not a positive number") }
            scale = s
            size = size[..<at]
        }
        let dims = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard dims.count == 2, let w = Double(dims[0]), let h = Double(dims[1]), w > 0, h > 0, w.isFinite, h.isFinite else {
            throw bad("size '\(size)' is not WIDTHxHEIGHT in points")
        }
        width = w
        height = h
        style = PixelStyle.bgra32Premultiplied.rawValue
        maximumCount = 10_000
        var seenStyle = false, seenMax = false
        for part in parts.dropFirst(2) {
            if part.hasPrefix("max=") {
                guard !seenMax else { throw bad("max= is given twice") }
                guard let n = Int(part.dropFirst(4)), n > 0 else { throw bad("'\(part)' is not max=N with N ≥ 1") }
                maximumCount = n
                seenMax = true
            } else if Self.styleNames.contains(part) {
                guard !seenStyle else { throw bad("two styles are given") }
                style = part
                seenStyle = true
            } else {
                throw bad("'\(part)' is neither a style (\(Self.styleNames.joined(separator: ", "))) nor max=N")
            }
        }
        _ = try makeFormat(family: nil)
    }

    /// The spec of `format` (its family aside).
    package init(_ format: ImageFormat) {
        name = format.name
        width = Double(format.size.width)
        height = Double(format.size.height)
        scale = format.scale
        style = format.style.rawValue
        maximumCount = format.maximumCount
    }

    /// The cache format this spec describes, in `family`.
    ///
    /// - Throws: ``CLIError`` with the usage status when the cache refuses it (bad name, too large).
    package func makeFormat(family: String?) throws -> ImageFormat {
        do {
            return try ImageFormat(
                name: name, family: family, size: CGSize(width: width, height: height), scale: scale,
                style: PixelStyle(rawValue: style) ?? .bgra32Premultiplied, maximumCount: maximumCount)
        } catch let error as ImageCacheError {
            throw CLIError("bad --format '\(name)': \(error.message)", status: ExitStatus.usage)
        }
    }

    /// The spec's text, as given on the command line.
    package var text: String {
        func number(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        return "\(name):\(number(width))x\(number(height))@\(number(scale)):\(style):max=\(maximumCount)"
    }
}
#endif
