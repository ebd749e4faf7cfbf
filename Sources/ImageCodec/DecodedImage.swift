/// A decoded bitmap that owns its pixels.
///
/// Pixels are either ``PixelFormat/bgra32Premultiplied`` (when the source has alpha) or
/// ``PixelFormat/bgrx32`` (opaque sources), the layouts of cairo's `ARGB32` and `RGB24` image
/// surfaces, so a decoded image can be drawn without conversion. Rows start every
/// ``bytesPerRow`` bytes; the buffer is 64-byte aligned. The pixels never change after decoding
/// finishes, which is what makes the type `Sendable`.
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
    /// The libjpeg DCT scale denominator used when decoding (1, 2, 4 or 8); 1 for other formats.
    public let scaleDenominator: Int

    /// The first byte of the pixels.
    public let baseAddress: UnsafeMutableRawPointer

    /// Allocates an uninitialised (zero-filled) bitmap. Used by the decoders.
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
    /// overwrite every byte pass `false`. Large buffers are recycled (see `PixelMemory`).
    ///
    /// - Precondition: `width > 0`, `height > 0` and `pixelFormat` is a 32-bit format.
    package init(
        width: Int, height: Int, pixelFormat: PixelFormat, source: ImageInfo,
        isOrientationApplied: Bool, scaleDenominator: Int = 1, zeroFilled: Bool
    ) {
        precondition(width > 0 && height > 0, "bitmap dimensions must be positive")
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = (width * pixelFormat.bytesPerPixel + 3) & ~3
        self.source = source
        self.isOrientationApplied = isOrientationApplied
        self.scaleDenominator = scaleDenominator
        self.baseAddress = PixelMemory.allocate(byteCount: max(bytesPerRow * height, 1), zeroed: zeroFilled)
    }

    deinit {
        PixelMemory.release(baseAddress, byteCount: max(bytesPerRow * height, 1))
    }

    /// The number of bytes the pixels occupy (`bytesPerRow × height`).
    public var byteCount: Int { bytesPerRow * height }

    /// Calls `body` with the pixel bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: baseAddress, count: byteCount))
    }
}
