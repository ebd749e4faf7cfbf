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
/// Every parameter is checked before any pixel is read, as the Image API 3.0 says (§ 4.1–4.3):
/// what the parser does not understand, an empty region or one wholly outside the image, a size
/// below a pixel or above the limits, a size larger than the region without `^`, a rotation
/// other than a multiple of 90°, is refused with `.invalidArgument` and a message saying why (an
/// HTTP 400); a `^` size that enlarges the region when upscaling is not offered, with
/// `.notImplemented` (an HTTP 501).
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
    /// The output's width before rotation (above the region's only for a `^` size).
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

    /// Whether the output is larger than the region on a side (a `^` size that enlarges it).
    public var upscales: Bool { width > regionWidth || height > regionHeight }

    /// The request's canonical path (what the same picture is called whatever spelling asked for
    /// it): `^w,h` when it enlarges the region, as § 4.8 writes it.
    public var canonicalPath: String {
        "\(x),\(y),\(regionWidth),\(regionHeight)/\(upscales ? "^" : "")\(width),\(height)/\(mirrored ? "!" : "")\(rotation)/\(quality.rawValue).\(format.rawValue)"
    }

    /// Parses the four path segments of an image request for a `imageWidth × imageHeight` image.
    ///
    /// - Parameters:
    ///   - region: the region segment: `full`, `square`, `x,y,w,h` or `pct:x,y,w,h`.
    ///   - size: the size segment: `max`, `w,`, `,h`, `pct:n`, `w,h` or `!w,h`, each with an
    ///     optional leading `^`.
    ///   - rotation: the rotation segment: a multiple of 90, after `!` when mirrored.
    ///   - qualityAndFormat: the last segment, `{quality}.{format}`.
    ///   - imageWidth: the full image's width in pixels.
    ///   - imageHeight: the full image's height in pixels.
    ///   - limits: the largest answer (`maxWidth`, `maxHeight`, `maxArea`).
    ///   - upscaling: whether `^` sizes may enlarge the region (the `sizeUpscaling` feature);
    ///     without it, such a size is refused as not implemented.
    /// - Throws: `ImageCacheError` `.invalidArgument` naming the parameter and what is wrong;
    ///   `.notImplemented` for a `^` size that enlarges the region when `upscaling` is false.
    public static func parse(
        region: String, size: String, rotation: String, qualityAndFormat: String,
        imageWidth: Int, imageHeight: Int, limits: IIIFLimits = .init(), upscaling: Bool = true
    ) throws -> IIIFImageRequest {
        let (x, y, w, h) = try parseRegion(region, imageWidth: imageWidth, imageHeight: imageHeight)
        let (outputWidth, outputHeight) = try resolveSize(size, regionWidth: w, regionHeight: h, limits: limits, upscaling: upscaling)
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
        return IIIFImageRequest(
            x: x, y: y, regionWidth: w, regionHeight: h, width: outputWidth, height: outputHeight,
            rotation: degrees, mirrored: mirrored, quality: quality, format: format)
    }

    // MARK: Region

    /// The region in whole pixels: `full`; `square`, centred (§ 4.1 leaves its place to the
    /// server); `x,y,w,h`; `pct:x,y,w,h` of the image's sides. A region reaching past the image
    /// is cropped at its edge; an empty one, or one wholly outside, is refused.
    private static func parseRegion(_ text: String, imageWidth: Int, imageHeight: Int) throws -> (Int, Int, Int, Int) {
        switch text {
        case "full":
            return (0, 0, imageWidth, imageHeight)
        case "square":
            let side = min(imageWidth, imageHeight)
            return ((imageWidth - side) / 2, (imageHeight - side) / 2, side, side)
        case _ where text.hasPrefix("pct:"):
            let values = try numbers(text.dropFirst(4), count: 4, what: "region", decimals: true)
            guard values[2] > 0, values[3] > 0 else { throw refusal("the region '\(text)' is empty: its width and height must be above 0") }
            guard values[0] < 100, values[1] < 100 else { throw outside(text, imageWidth, imageHeight) }
            // Edges rounded to the nearest pixel (so regions that meet in percentages meet in
            // pixels too), and a region inside the image keeps the pixel it lies on even when it
            // is narrower than one or starts in the image's last half pixel.
            let x0 = min(pixels(values[0], of: imageWidth), imageWidth - 1)
            let y0 = min(pixels(values[1], of: imageHeight), imageHeight - 1)
            let x1 = max(x0 + 1, min(imageWidth, pixels(values[0] + values[2], of: imageWidth)))
            let y1 = max(y0 + 1, min(imageHeight, pixels(values[1] + values[3], of: imageHeight)))
            return (x0, y0, x1 - x0, y1 - y0)
        default:
            let values = try numbers(Substring(text), count: 4, what: "region", decimals: false)
            let (x, y, w, h) = (Int(values[0]), Int(values[1]), Int(values[2]), Int(values[3]))
            guard w > 0, h > 0 else { throw refusal("the region '\(text)' is empty: its width and height must be above 0") }
            guard x < imageWidth, y < imageHeight else { throw outside(text, imageWidth, imageHeight) }
            return (x, y, min(w, imageWidth - x), min(h, imageHeight - y))
        }
    }

    private static func outside(_ text: String, _ imageWidth: Int, _ imageHeight: Int) -> ImageCacheError {
        refusal("the region '\(text)' lies outside the \(imageWidth)×\(imageHeight) image")
    }

    /// `percent` of `side`, to the nearest pixel (clamped so that an absurd value cannot overflow).
    static func pixels(_ percent: Double, of side: Int) -> Int {
        Int((min(percent, 1e6) * Double(side) / 100).rounded())
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
    static func numbers(_ text: Substring, count: Int, what: String, decimals: Bool) throws -> [Double] {
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
                throw refusal(
                    "'\(part)' in the \(what) '\(text)' is not a \(decimals ? "number" : "whole number") of at most 10 characters")
            }
            return value
        }
    }

    static func refusal(_ message: String) -> ImageCacheError {
        ImageCacheError(.invalidArgument, message)
    }
}
#endif
