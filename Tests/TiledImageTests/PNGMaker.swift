import ImageCodec

/// Pixels for the PNGs the tests write by hand (with FICTestSupport's `PNGFiles`).
enum PNGMaker {
    /// The grey levels of the bundled camera photograph, mirrored out to `width × height` (so the
    /// pyramid has several levels and odd sizes).
    static func greyLevels(width: Int, height: Int) throws -> [UInt8] {
        let photo = try ImageDecoder.decode(try Fixtures.bytes("png/camera-gray8.png"))
        var levels = [UInt8](repeating: 0, count: width * height)
        photo.withUnsafeBytes { raw in
            for y in 0..<height {
                var sy = y % photo.height
                if (y / photo.height) % 2 == 1 { sy = photo.height - 1 - sy }
                for x in 0..<width {
                    var sx = x % photo.width
                    if (x / photo.width) % 2 == 1 { sx = photo.width - 1 - sx }
                    levels[y * width + x] = raw[sy * photo.bytesPerRow + sx * 4]
                }
            }
        }
        return levels
    }
}
