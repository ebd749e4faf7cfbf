/// A decoded bitmap that owns its pixels.
///
/// Pixels are either ``PixelFormat/bgra32Premultiplied`` (when the source has alpha) or
/// ``PixelFormat/bgrx32`` (opaque sources), the layouts of cairo's `ARGB32` and `RGB24` image
/// surfaces, so a decoded image can be drawn without conversion. Rows start every
/// ``bytesPerRow`` bytes; the buffer is 64-byte aligned. Large bitmaps live in memory mapped for
/// them (never in `malloc`'s heap), recycled through a small bounded pool. The pixels never change
/// after decoding finishes, which is what makes the type `Sendable`.
public final class DecodedImage: @unchecked Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Distance in bytes between the starts of two rows (a multiple of 4, as cairo requires).
    public let bytesPerRow: Int
    /// The memory layout of the pixels.
    public let pixelFormat: PixelFormat
    /// Information about the source this bitmap was decoded from (its full size, format and orientation).
    public let source: ImageInfo
    /// Whether ``ImageInfo/orientation`` has been applied to these pixels, so that they are upright.
    public let isOrientationApplied: Bool
    /// How many times smaller than the source this bitmap is, the larger of the two sides'
    /// ratios rounded up, whatever the format: 1 only for a full-size decode. A JPEG decoded at
    /// libjpeg's DCT scale 1/4 and then shrunk to the covering size reports that size's ratio
    /// (600 × 400 to 96 × 64: 7), not the DCT scale; every decoder works this way, so the value
    /// says how much detail the bitmap can hold, not how it was made.
    public let scaleDenominator: Int
    /// Recoverable damage the decoder met and decoded past (libjpeg warnings such as extraneous
    /// bytes before a marker, or junk before the image), in the words of the decoder. Empty for a
    /// clean file. Each one was also logged.
    public private(set) var warnings: [String] = []

    /// The first byte of the pixels. Inside the package only: others read the pixels through
    /// ``withUnsafeBytes(_:)``, which keeps the image alive while they do.
    package let baseAddress: UnsafeMutableRawPointer
    /// The memory behind ``baseAddress``.
    private let storage: LargeBufferPool.Storage

    /// Allocates a zero-filled bitmap. Used by the decoders and tests.
    ///
    /// - Precondition: `width > 0`, `height > 0` and `pixelFormat` is a 32-bit format.
    package convenience init(
        width: Int, height: Int, pixelFormat: PixelFormat, source: ImageInfo,
        isOrientationApplied: Bool, scaleDenominator: Int = 1
    ) {
        self.init(
            width: width, height: height, pixelFormat: pixelFormat, source: source,
            isOrientationApplied: isOrientationApplied, scaleDenominator: scaleDenominator, zeroFilled: true
        )
    }

    /// Allocates a bitmap whose memory is zero-filled only when `zeroFilled` is `true`; decoders that
    /// overwrite every byte pass `false`. When the system refuses to map memory this falls back to
    /// `malloc`; decoders use ``init(allocating:height:pixelFormat:source:isOrientationApplied:scaleDenominator:zeroFilled:)``,
    /// which throws instead.
    ///
    /// - Precondition: `width > 0`, `height > 0` and `pixelFormat` is a 32-bit format.
    package convenience init(
        width: Int, height: Int, pixelFormat: PixelFormat, source: ImageInfo,
        isOrientationApplied: Bool, scaleDenominator: Int = 1, zeroFilled: Bool
    ) {
        precondition(width > 0 && height > 0, "bitmap dimensions must be positive")
        let storage = LargeBufferPool.allocateOrFallBack(byteCount: Self.bytesPerRow(width, pixelFormat) * height, zeroed: zeroFilled)
        self.init(
            width: width, height: height, pixelFormat: pixelFormat, source: source,
            isOrientationApplied: isOrientationApplied, scaleDenominator: scaleDenominator, storage: storage)
    }

    /// Allocates a bitmap for a decoder, throwing ``ImageCacheError/Code/overMemoryBudget`` when the
    /// system refuses the memory.
    ///
    /// - Precondition: `width > 0`, `height > 0` and `pixelFormat` is a 32-bit format.
    package convenience init(
        allocating width: Int, height: Int, pixelFormat: PixelFormat, source: ImageInfo,
        isOrientationApplied: Bool, scaleDenominator: Int = 1, zeroFilled: Bool
    ) throws {
        precondition(width > 0 && height > 0, "bitmap dimensions must be positive")
        let storage = try LargeBufferPool.allocate(byteCount: Self.bytesPerRow(width, pixelFormat) * height, zeroed: zeroFilled)
        self.init(
            width: width, height: height, pixelFormat: pixelFormat, source: source,
            isOrientationApplied: isOrientationApplied, scaleDenominator: scaleDenominator, storage: storage)
    }

    /// A bitmap over `storage`, which holds `bytesPerRow(width, pixelFormat) × height` bytes.
    private init(
        width: Int, height: Int, pixelFormat: PixelFormat, source: ImageInfo,
        isOrientationApplied: Bool, scaleDenominator: Int, storage: LargeBufferPool.Storage
    ) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = Self.bytesPerRow(width, pixelFormat)
        self.source = source
        self.isOrientationApplied = isOrientationApplied
        self.scaleDenominator = scaleDenominator
        self.storage = storage
        self.baseAddress = storage.base
    }

    /// The row length of a `width`-pixel bitmap: rounded up to a multiple of 4 bytes.
    private static func bytesPerRow(_ width: Int, _ pixelFormat: PixelFormat) -> Int {
        (width * pixelFormat.bytesPerPixel + 3) & ~3
    }

    /// The same pixels described by another `source` (a decoder that learns the orientation only
    /// after decoding, from EXIF data at the end of the file).
    private init(sharing other: DecodedImage, source: ImageInfo, isOrientationApplied: Bool) {
        width = other.width
        height = other.height
        pixelFormat = other.pixelFormat
        bytesPerRow = other.bytesPerRow
        self.source = source
        self.isOrientationApplied = isOrientationApplied
        scaleDenominator = other.scaleDenominator
        warnings = other.warnings
        storage = other.storage
        baseAddress = other.baseAddress
    }

    /// `image`'s pixels described by `source`; `image` must not be used afterwards.
    static func rebinding(_ image: DecodedImage, source: ImageInfo, isOrientationApplied: Bool) -> DecodedImage {
        DecodedImage(sharing: image, source: source, isOrientationApplied: isOrientationApplied)
    }

    /// The number of bytes the pixels occupy (`bytesPerRow × height`).
    public var byteCount: Int { bytesPerRow * height }

    /// Calls `body` with the pixel bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(UnsafeRawBufferPointer(start: baseAddress, count: byteCount)) }
    }

    /// Records recoverable damage met while decoding; only decoders call it, before they return.
    func addWarnings(_ more: [String]) {
        warnings += more
    }
}
