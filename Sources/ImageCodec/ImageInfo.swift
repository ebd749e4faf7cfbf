/// The container formats this package decodes.
public enum ImageFileFormat: String, Sendable, Hashable, Codable {
    /// JPEG (JFIF / EXIF), decoded with libjpeg-turbo.
    case jpeg
    /// PNG, decoded with libspng.
    case png
    /// WebP (lossy and lossless), decoded with libwebp.
    case webp
    /// HEIF with HEVC-coded images (HEIC, as phones write it), decoded with libheif and libde265.
    case heif
    /// AVIF (HEIF with AV1-coded images), decoded with libheif and dav1d.
    case avif

    /// JPEG XL (bare codestream or container), decoded with libjxl.
    case jxl
    /// GIF (87a and 89a; the first frame of an animation), decoded with giflib.
    case gif

    /// TIFF and BigTIFF (its first page), decoded with libtiff.
    case tiff

    /// The format's name, for people: "JPEG", "PNG", "WebP", "HEIF", "AVIF", "JPEG XL", "GIF", "TIFF".
    public var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        case .heif: "HEIF"
        case .avif: "AVIF"
        case .jxl: "JPEG XL"
        case .gif: "GIF"
        case .tiff: "TIFF"
        }
    }
}

/// EXIF orientation: how the stored pixels must be transformed to be displayed upright.
public enum ImageOrientation: Int, Sendable, Hashable, Codable {
    /// Stored upright.
    case up = 1
    /// Mirrored horizontally.
    case upMirrored = 2
    /// Rotated 180°.
    case down = 3
    /// Mirrored vertically.
    case downMirrored = 4
    /// Mirrored along the top-left to bottom-right diagonal (transposed).
    case leftMirrored = 5
    /// Must be rotated 90° clockwise to display.
    case right = 6
    /// Mirrored along the top-right to bottom-left diagonal (transversed).
    case rightMirrored = 7
    /// Must be rotated 90° counter-clockwise to display.
    case left = 8

    /// Whether displaying the image swaps its width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}

/// What the header of an encoded image says, read without decoding its pixels.
public struct ImageInfo: Sendable, Hashable {
    /// The container format, sniffed from the bytes.
    public var format: ImageFileFormat
    /// Width in pixels as stored.
    public var width: Int
    /// Height in pixels as stored.
    public var height: Int
    /// The EXIF orientation (``ImageOrientation/up`` when absent).
    public var orientation: ImageOrientation
    /// Whether the image carries an alpha channel.
    public var hasAlpha: Bool
    /// How the file says its colours are to be understood (decoded pixels are always sRGB).
    public var color: ColorDescription
    /// Bits per sample as stored (8 for most images; 1 to 16).
    public var bitsPerSample: Int
    /// Frames in the file (1 for a still image; the first is the one decoded).
    public var frameCount: Int

    /// Creates an info value.
    public init(
        format: ImageFileFormat, width: Int, height: Int, orientation: ImageOrientation = .up, hasAlpha: Bool,
        color: ColorDescription = .untagged, bitsPerSample: Int = 8, frameCount: Int = 1
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.color = color
        self.bitsPerSample = bitsPerSample
        self.frameCount = frameCount
    }

    /// Width once the orientation is applied.
    public var displayWidth: Int { orientation.swapsDimensions ? height : width }
    /// Height once the orientation is applied.
    public var displayHeight: Int { orientation.swapsDimensions ? width : height }
}
