#if Server
import FICCore
import ImageCodec
import TiledImage

/// Turns a region read from a pyramid into the file a IIIF request asked for: mirrored and
/// rotated, its colours reduced to grey or black and white, encoded.
enum ImageAnswer {
    /// The encoded file of `bitmap` (BGRA premultiplied, the request's unrotated size) for `request`.
    static func encode(_ bitmap: RegionBitmap, for request: IIIFImageRequest, hasAlpha: Bool, quality: Int) throws -> [UInt8] {
        var bitmap = orient(bitmap, rotation: request.rotation, mirrored: request.mirrored)
        switch request.quality {
        case .default, .color: break
        case .gray: reduce(&bitmap, bitonal: false)
        case .bitonal: reduce(&bitmap, bitonal: true)
        }
        return try encode(bitmap, format: request.format, hasAlpha: hasAlpha, quality: quality)
    }

    /// `bitmap` in `format`: JPEG flattened over black (premultiplied samples are exactly that),
    /// PNG and WebP with alpha when the image has it.
    static func encode(_ bitmap: RegionBitmap, format: IIIFImageRequest.Format, hasAlpha: Bool, quality: Int) throws -> [UInt8] {
        try bitmap.pixels.withUnsafeBytes { raw in
            let pixels = raw.baseAddress!
            switch format {
            case .jpg:
                return try JPEGEncoder.encode(
                    pixels: pixels, width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow,
                    format: .bgra32Premultiplied, quality: quality)
            case .png:
                return try PNGEncoder.encode(
                    pixels: pixels, width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow,
                    format: hasAlpha ? .bgra32Premultiplied : .bgrx32)
            case .webp:
                guard hasAlpha else {
                    return try WebPEncoder.encode(
                        bgra: pixels, width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow, quality: Float(quality))
                }
                // libwebp takes straight (unpremultiplied) alpha.
                let straight = unpremultiplied(raw)
                return try straight.withUnsafeBytes {
                    try WebPEncoder.encode(
                        bgra: $0.baseAddress!, width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow,
                        quality: Float(quality))
                }
            }
        }
    }

    /// IIIF's rotation (mirror first, then turn clockwise) as the EXIF orientation that displays
    /// the same way, and the bitmap made upright by it.
    private static func orient(_ bitmap: RegionBitmap, rotation: Int, mirrored: Bool) -> RegionBitmap {
        let orientation: ImageOrientation =
            switch (rotation, mirrored) {
            case (0, false): .up
            case (0, true): .upMirrored
            case (90, false): .right
            case (90, true): .rightMirrored
            case (180, false): .down
            case (180, true): .downMirrored
            case (270, false): .left
            default: .leftMirrored
            }
        guard orientation != .up else { return bitmap }
        let (width, height) = orientation.swapsDimensions ? (bitmap.height, bitmap.width) : (bitmap.width, bitmap.height)
        var result = RegionBitmap(width: width, height: height, pixels: [UInt8](repeating: 0, count: bitmap.pixels.count))
        bitmap.pixels.withUnsafeBytes { from in
            result.pixels.withUnsafeMutableBytes { to in
                OrientationTransform.copy(
                    from.baseAddress!, width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow,
                    orientation: orientation, into: to.baseAddress!, bytesPerRow: width * 4)
            }
        }
        return result
    }

    /// Each pixel's luma (Rec. 709 weights, as sRGB's primaries are), or that thresholded at half,
    /// in every colour channel; alpha kept.
    private static func reduce(_ bitmap: inout RegionBitmap, bitonal: Bool) {
        bitmap.pixels.withUnsafeMutableBytes { raw in
            let pixels = raw.bindMemory(to: UInt8.self)
            for i in stride(from: 0, to: pixels.count, by: 4) {
                let (b, g, r, a) = (UInt32(pixels[i]), UInt32(pixels[i + 1]), UInt32(pixels[i + 2]), UInt32(pixels[i + 3]))
                var luma = (r * 54 + g * 183 + b * 19 + 128) >> 8
                // Premultiplied: the threshold is half of this pixel's alpha.
                if bitonal { luma = luma * 2 >= a ? a : 0 }
                let value = UInt8(min(luma, a))
                (pixels[i], pixels[i + 1], pixels[i + 2]) = (value, value, value)
            }
        }
    }

    /// Premultiplied BGRA pixels with their colour divided by their alpha (the decoders' rule).
    private static func unpremultiplied(_ raw: UnsafeRawBufferPointer) -> [UInt32] {
        raw.bindMemory(to: UInt32.self).map { UInt32(littleEndian: PixelConversion.unpremultiplied(UInt32(littleEndian: $0))) }
    }
}
#endif
