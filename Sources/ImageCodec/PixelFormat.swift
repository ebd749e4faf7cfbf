/// The memory layouts of pixels this package decodes into, draws into and stores.
///
/// All layouts are little-endian and match cairo's image surface formats, so a bitmap in one of
/// them can be wrapped by a cairo surface without conversion.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// 32 bits per pixel, premultiplied alpha, bytes B, G, R, A in memory (cairo `ARGB32`).
    case bgra32Premultiplied = "bgra"
    /// 32 bits per pixel with no alpha: bytes B, G, R, unused (cairo `RGB24`).
    case bgrx32 = "bgrx"
    /// 16 bits per pixel, 5-6-5 bits of red, green and blue in a little-endian `UInt16` (cairo `RGB16_565`).
    case rgb565 = "rgb565"
    /// 8 bits per pixel of luminance.
    case gray8 = "gray8"

    /// The number of bytes one pixel takes.
    public var bytesPerPixel: Int {
        switch self {
        case .bgra32Premultiplied, .bgrx32: return 4
        case .rgb565: return 2
        case .gray8: return 1
        }
    }

    /// Whether the layout carries an alpha channel.
    public var hasAlpha: Bool { self == .bgra32Premultiplied }
}
