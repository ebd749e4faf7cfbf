#if Server
import FICCore

/// The largest output a IIIF service makes, announced in its `info.json` (`maxWidth`,
/// `maxHeight`, `maxArea`): a `max` size is fitted inside, any other larger size is refused.
public struct IIIFLimits: Sendable, Hashable {
    /// The widest output, in pixels.
    public var maxWidth: Int
    /// The tallest output, in pixels.
    public var maxHeight: Int
    /// The most pixels of one output.
    public var maxArea: Int

    /// Limits of `maxWidth × maxHeight`, `maxArea` pixels (by default 4096 × 4096, 8 megapixels:
    /// 32 MB of pixels for the largest answer).
    public init(maxWidth: Int = 4096, maxHeight: Int = 4096, maxArea: Int = 8 << 20) {
        self.maxWidth = max(1, maxWidth)
        self.maxHeight = max(1, maxHeight)
        self.maxArea = max(1, maxArea)
    }
}

/// One IIIF Image API 3.0 image request — `{region}/{size}/{rotation}/{quality}.{format}` —
/// parsed and resolved against an image's size, everything in whole pixels.
///
/// Every parameter is checked before any pixel is read: what the parser does not understand, a
/// region outside the image, a size above the region's (this service does not upscale) or above
/// the limits, a rotation other than a multiple of 90°, is refused with `.invalidArgument` and a
/// message saying why (an HTTP 400).
public struct IIIFImageRequest: Sendable, Hashable {
    /// The output's colours.
    public enum Quality: String, Sendable, CaseIterable {
        /// As the image is (colour).
        case `default`
        /// Colour (the same as `default`).
        case color
        /// Grey: each pixel's luma.
        case gray
        /// Black or white: luma thresholded at half.
        case bitonal
    }

    /// The output's file format.
    public enum Format: String, Sendable, CaseIterable {
        /// JPEG (libjpeg-turbo); alpha flattened over black.
        case jpg
        /// PNG (libspng), with alpha when the image has it.
        case png
        /// Lossy WebP (libwebp), with alpha when the image has it.
        case webp

        /// The `Content-Type` of the format.
        public var mediaType: String {
            switch self {
            case .jpg: "image/jpeg"
            case .png: "image/png"
            case .webp: "image/webp"
            }
        }
    }

    /// The region's left edge, in full-resolution pixels.
    public var x: Int
    /// The region's top edge.
    public var y: Int
    /// The region's width (clipped by the image).
    public var regionWidth: Int
    /// The region's height (clipped by the image).
    public var regionHeight: Int
    /// The output's width before rotation.
    public var width: Int
    /// The output's height before rotation.
    public var height: Int
    /// Clockwise degrees: 0, 90, 180 or 270.
    public var rotation: Int
    /// Whether the region is mirrored (left to right) before it is rotated.
    public var mirrored: Bool
    /// The output's colours.
    public var quality: Quality
    /// The output's format.
    public var format: Format

    /// The request's canonical path (what the same picture is called whatever spelling asked for it).
    public var canonicalPath: String {
        "\(x),\(y),\(regionWidth),\(regionHeight)/\(width),\(height)/\(mirrored ? "!" : "")\(rotation)/\(quality.rawValue).\(format.rawValue)"
    }

    /// Parses the four path segments of an image request for a `imageWidth × imageHeight` image.
    ///
    /// - Throws: `ImageCacheError` `.invalidArgument` naming the parameter and what is wrong.
    public static func parse(region: String, size: String, rotation: String, qualityAndFormat: String,
                             imageWidth: Int, imageHeight: Int, limits: IIIFLimits = .init()) throws -> IIIFImageRequest {
        let (x, y, w, h) = try parseRegion(region, imageWidth: imageWidth, imageHeight: imageHeight)
        let (outputWidth, outputHeight) = try parseSize(size, regionWidth: w, regionHeight: h, limits: limits)
        let (degrees, mirrored) = try parseRotation(rotation)
        guard let dot = qualityAndFormat.lastIndex(of: ".") else {
            throw refusal("'\(qualityAndFormat)' is not {quality}.{format}, such as default.jpg")
        }
        let qualityName = String(qualityAndFormat[..<dot]), formatName = String(qualityAndFormat[qualityAndFormat.index(after: dot)...])
        guard let quality = Quality(rawValue: qualityName) else {
            throw refusal("the quality '\(qualityName)' is not one of \(Quality.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let format = Format(rawValue: formatName) else {
            throw refusal("the format '\(formatName)' is not one of \(Format.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return IIIFImageRequest(x: x, y: y, regionWidth: w, regionHeight: h, width: outputWidth, height: outputHeight,
                                rotation: degrees, mirrored: mirrored, quality: quality, format: format)
    }

    // MARK: Region

    private static func parseRegion(_ text: String, imageWidth: Int, imageHeight: Int) throws -> (Int, Int, Int, Int) {
        var x: Int, y: Int, w: Int, h: Int
        switch text {
        case "full":
            return (0, 0, imageWidth, imageHeight)
        case "square":
            let side = min(imageWidth, imageHeight)
            return ((imageWidth - side) / 2, (imageHeight - side) / 2, side, side)
        case _ where text.hasPrefix("pct:"):
            let values = try numbers(text.dropFirst(4), count: 4, what: "region", decimals: true)
            guard values[2] > 0, values[3] > 0 else { throw refusal("the region '\(text)' is empty: its width and height must be above 0") }
            // Percentages of the image, rounded to the nearest pixel.
            x = pixels(values[0], of: imageWidth)
            y = pixels(values[1], of: imageHeight)
            w = pixels(values[2], of: imageWidth)
            h = pixels(values[3], of: imageHeight)
        default:
            let values = try numbers(Substring(text), count: 4, what: "region", decimals: false)
            (x, y, w, h) = (Int(values[0]), Int(values[1]), Int(values[2]), Int(values[3]))
            guard w > 0, h > 0 else { throw refusal("the region '\(text)' is empty: its width and height must be above 0") }
        }
        guard x < imageWidth, y < imageHeight else {
            throw refusal("the region '\(text)' lies outside the \(imageWidth)×\(imageHeight) image")
        }
        w = min(w, imageWidth - x)
        h = min(h, imageHeight - y)
        guard w > 0, h > 0 else { throw refusal("the region '\(text)' is smaller than a pixel") }
        return (x, y, w, h)
    }

    /// `percent` of `side`, to the nearest pixel (clamped so that an absurd value cannot overflow).
    private static func pixels(_ percent: Double, of side: Int) -> Int {
        Int((min(percent, 1e6) * Double(side) / 100).rounded())
    }

    // MARK: Size

    private static func parseSize(_ text: String, regionWidth rw: Int, regionHeight rh: Int, limits: IIIFLimits) throws -> (Int, Int) {
        let upscale = text.hasPrefix("^")
        let body = upscale ? text.dropFirst() : Substring(text)
        var w: Int, h: Int
        if body == "max" {
            // The region, shrunk (keeping its shape) to fit the limits.
            let scale = min(1, Double(limits.maxWidth) / Double(rw), Double(limits.maxHeight) / Double(rh),
                            (Double(limits.maxArea) / (Double(rw) * Double(rh))).squareRoot())
            w = max(1, min(rw, Int(Double(rw) * scale)))
            h = max(1, min(rh, Int(Double(rh) * scale)))
            while w * h > limits.maxArea { (w, h) = (max(1, w - 1), max(1, h - 1)) }
            return (w, h)
        } else if body == "full" {
            throw refusal("the size 'full' is IIIF 2; version 3 calls it 'max'")
        } else if body.hasPrefix("pct:") {
            let n = try numbers(body.dropFirst(4), count: 1, what: "size", decimals: true)[0]
            guard n > 0 else { throw refusal("the size '\(text)' is empty: the percentage must be above 0") }
            w = max(1, pixels(n, of: rw))
            h = max(1, pixels(n, of: rh))
        } else if body.hasPrefix("!") {
            let values = try numbers(body.dropFirst(), count: 2, what: "size", decimals: false)
            guard values[0] > 0, values[1] > 0 else { throw refusal("the size '\(text)' is empty: both sides must be above 0") }
            // The largest size of the region's shape inside the box.
            let scale = min(values[0] / Double(rw), values[1] / Double(rh))
            w = max(1, min(Int(values[0]), Int((Double(rw) * scale).rounded())))
            h = max(1, min(Int(values[1]), Int((Double(rh) * scale).rounded())))
        } else if body.hasSuffix(","), !body.dropLast().contains(",") {
            w = Int(try numbers(body.dropLast(), count: 1, what: "size", decimals: false)[0])
            guard w > 0 else { throw refusal("the size '\(text)' is empty: the width must be above 0") }
            h = max(1, Int((Double(rh) * Double(w) / Double(rw)).rounded()))
        } else if body.hasPrefix(","), !body.dropFirst().contains(",") {
            h = Int(try numbers(body.dropFirst(), count: 1, what: "size", decimals: false)[0])
            guard h > 0 else { throw refusal("the size '\(text)' is empty: the height must be above 0") }
            w = max(1, Int((Double(rw) * Double(h) / Double(rh)).rounded()))
        } else {
            let values = try numbers(body, count: 2, what: "size", decimals: false)
            (w, h) = (Int(values[0]), Int(values[1]))
            guard w > 0, h > 0 else { throw refusal("the size '\(text)' is empty: both sides must be above 0") }
        }
        guard w <= rw, h <= rh else {
            throw refusal(upscale
                ? "the size '\(text)' is larger than the \(rw)×\(rh) region, and this service does not upscale"
                : "the size '\(text)' is larger than the \(rw)×\(rh) region (IIIF 3 upscales only with '^', which this service does not offer)")
        }
        guard w <= limits.maxWidth, h <= limits.maxHeight, w * h <= limits.maxArea else {
            throw refusal("the size \(w)×\(h) is above this service's limits (maxWidth \(limits.maxWidth), maxHeight \(limits.maxHeight), maxArea \(limits.maxArea)); ask for a smaller size or 'max'")
        }
        return (w, h)
    }

    // MARK: Rotation

    private static func parseRotation(_ text: String) throws -> (Int, Bool) {
        let mirrored = text.hasPrefix("!")
        let body = mirrored ? text.dropFirst() : Substring(text)
        let degrees = try numbers(body, count: 1, what: "rotation", decimals: true)[0]
        guard degrees <= 360 else { throw refusal("the rotation '\(text)' is above 360 degrees") }
        let whole = Int(degrees)
        guard Double(whole) == degrees, whole % 90 == 0 else {
            throw refusal("the rotation '\(text)' is not a multiple of 90 degrees, the only rotations this service makes")
        }
        return (whole % 360, mirrored)
    }

    // MARK: Numbers

    /// `count` comma-separated non-negative numbers: digits only, or with `decimals` digits and one
    /// point; at most 10 characters each, so no value overflows.
    private static func numbers(_ text: Substring, count: Int, what: String, decimals: Bool) throws -> [Double] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == count else {
            throw refusal("the \(what) '\(text)' is not \(count == 1 ? "a number" : "\(count) numbers separated by commas")")
        }
        return try parts.map { part in
            let points = part.utf8.filter { $0 == UInt8(ascii: ".") }.count
            guard !part.isEmpty, part.utf8.count <= 10, part.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }),
                  points == 0 || (decimals && points == 1 && part.utf8.count > 1),
                  let value = Double(part)
            else {
                throw refusal("'\(part)' in the \(what) '\(text)' is not a \(decimals ? "number" : "whole number") of at most 10 characters")
            }
            return value
        }
    }

    private static func refusal(_ message: String) -> ImageCacheError {
        ImageCacheError(.invalidArgument, message)
    }
}
#endif
