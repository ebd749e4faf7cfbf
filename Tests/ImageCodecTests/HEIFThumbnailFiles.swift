import CHeif
import Foundation
import ImageCodec
import Testing

/// AVIF files whose embedded thumbnail is not a copy of their image, written with libheif's
/// encoder API (no command-line encoder can): so that a test sees which of the two was decoded.
/// AV1 through aom, which, unlike x265, prints nothing.
enum HEIFThumbnailFiles {
    /// Writes `photo` as the primary image, with a thumbnail made from a plain red (or, unless
    /// `red`, the photo's) image of `thumbnail` size, scaled by libheif to fit `box`.
    static func write(_ photo: DecodedImage, thumbnail: (width: Int, height: Int), red: Bool, box: Int, to path: String) throws {
        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_AV1, &encoder))
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 90))
        let primaryImage = try image(photo.width, photo.height) { x, y in
            let p = (photo.baseAddress + y * photo.bytesPerRow + 4 * x).assumingMemoryBound(to: UInt8.self)
            return (p[2], p[1], p[0])
        }
        defer { heif_image_release(primaryImage) }
        var primary: OpaquePointer?
        try check(heif_context_encode_image(context, primaryImage, encoder, nil, &primary))
        defer { heif_image_handle_release(primary) }
        let thumbnailImage = try image(thumbnail.width, thumbnail.height) { x, y in
            if red { return (255, 0, 0) }
            let p = (photo.baseAddress + (y % photo.height) * photo.bytesPerRow + 4 * (x % photo.width)).assumingMemoryBound(to: UInt8.self)
            return (p[2], p[1], p[0])
        }
        defer { heif_image_release(thumbnailImage) }
        var thumbnailHandle: OpaquePointer?
        try check(heif_context_encode_thumbnail(context, thumbnailImage, primary, encoder, nil, Int32(box), &thumbnailHandle))
        heif_image_handle_release(thumbnailHandle)
        try check(heif_context_write_to_file(context, path))
    }

    /// An interleaved 8-bit RGB image of `width × height` whose pixels `color(x, y)` gives.
    private static func image(_ width: Int, _ height: Int, _ color: (Int, Int) -> (UInt8, UInt8, UInt8)) throws -> OpaquePointer {
        var created: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &created))
        let image = try #require(created)
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8))
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(image, heif_channel_interleaved, &stride))
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = color(x, y)
                let p = plane + y * Int(stride) + 3 * x
                p[0] = r
                p[1] = g
                p[2] = b
            }
        }
        return image
    }

    private static func check(_ error: heif_error) throws {
        try #require(error.code == heif_error_Ok, "libheif: \(error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)")")
    }
}
