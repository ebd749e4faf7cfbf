/// The fixed geometry of one table: every image in it has the same pixel size and depth.
public struct TableConfiguration: Sendable, Hashable {
    /// Width of every image, in pixels.
    public var pixelWidth: Int
    /// Height of every image, in pixels.
    public var pixelHeight: Int
    /// Bytes per pixel (1, 2 or 4).
    public var bytesPerPixel: Int
    /// The most entries the table holds. This is a hard limit: the file never has more slots.
    public var maximumCount: Int
    /// Anything that, when it changes, makes stored images invalid (for example a serialised image
    /// format). A table opened with a different identity is discarded and rebuilt empty.
    public var identity: String
    /// Approximate bytes of slots added to the file, and mapped, at a time.
    public var chunkBytes: Int
    /// The page size the file is laid out for: the running system's. Only tests set another one
    /// (a multiple of the system's), to see what a table written on another system does.
    package var pageSize: Int

    /// Row starts are aligned to this many bytes.
    public static let rowAlignment = 64
    /// The largest width or height of a stored image, in pixels.
    public static let maximumPixelDimension = 16384
    /// The largest slot, in bytes: images of a table are meant to be shown, not archived.
    public static let maximumSlotBytes = 256 << 20
    /// The largest maximum count.
    public static let maximumEntryCount = 1 << 24
    /// The largest identity, in UTF-8 bytes.
    public static let maximumIdentityBytes = 2048

    /// Creates a configuration.
    public init(pixelWidth: Int, pixelHeight: Int, bytesPerPixel: Int, maximumCount: Int, identity: String, chunkBytes: Int = 2 << 20) {
        self.init(
            pixelWidth: pixelWidth, pixelHeight: pixelHeight, bytesPerPixel: bytesPerPixel, maximumCount: maximumCount,
            identity: identity, chunkBytes: chunkBytes, pageSize: systemPageSize)
    }

    /// Creates a configuration laid out for `pageSize` (tests only).
    package init(pixelWidth: Int, pixelHeight: Int, bytesPerPixel: Int, maximumCount: Int, identity: String, chunkBytes: Int, pageSize: Int)
    {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.bytesPerPixel = bytesPerPixel
        self.maximumCount = maximumCount
        self.identity = identity
        self.chunkBytes = chunkBytes
        self.pageSize = pageSize
    }

    /// Bytes from the start of one row to the next: width × bytes per pixel, rounded up to 64.
    public var bytesPerRow: Int { roundUp(saturatingProduct(pixelWidth, bytesPerPixel), Self.rowAlignment) }

    /// Bytes of pixels in one image.
    public var pixelByteCount: Int { saturatingProduct(bytesPerRow, pixelHeight) }

    /// Bytes one slot takes in the file: the pixels rounded up to whole pages, so every slot starts on a page.
    public var slotLength: Int { roundUp(pixelByteCount, pageSize) }

    /// Slots added (and mapped) together: as many as fit in ``chunkBytes``, at least one.
    public var slotsPerChunk: Int { max(1, min(maximumCount, chunkBytes / max(slotLength, 1))) }

    /// Checks that the configuration describes a table this system can hold.
    ///
    /// - Throws: ``ImageCacheError`` with code `.invalidConfiguration`, saying which limit was passed.
    func validate() throws {
        let limit = Self.maximumPixelDimension
        guard (1...limit).contains(pixelWidth), (1...limit).contains(pixelHeight) else {
            throw ImageCacheError(
                .invalidConfiguration, "image size \(pixelWidth)×\(pixelHeight) px is outside 1…\(limit) in each direction")
        }
        guard [1, 2, 4].contains(bytesPerPixel) else {
            throw ImageCacheError(.invalidConfiguration, "bytes per pixel must be 1, 2 or 4, not \(bytesPerPixel)")
        }
        guard slotLength <= Self.maximumSlotBytes else {
            throw ImageCacheError(
                .invalidConfiguration,
                "one image of \(pixelWidth)×\(pixelHeight) px × \(bytesPerPixel) bytes needs \(slotLength >> 20) MiB; a table holds images of at most \(Self.maximumSlotBytes >> 20) MiB"
            )
        }
        guard (1...Self.maximumEntryCount).contains(maximumCount) else {
            throw ImageCacheError(
                .invalidConfiguration, "maximum count must be between 1 and \(Self.maximumEntryCount), not \(maximumCount)")
        }
        guard identity.utf8.count <= Self.maximumIdentityBytes else {
            throw ImageCacheError(.invalidConfiguration, "identity is longer than \(Self.maximumIdentityBytes) bytes")
        }
        guard (4096...(1 << 30)).contains(chunkBytes) else {
            throw ImageCacheError(.invalidConfiguration, "chunk size must be between 4 KiB and 1 GiB, not \(chunkBytes) bytes")
        }
        guard pageSize >= 4096, pageSize <= 1 << 20, pageSize & (pageSize - 1) == 0, pageSize % systemPageSize == 0 else {
            throw ImageCacheError(
                .invalidConfiguration, "page size \(pageSize) is not a power of two multiple of the system's \(systemPageSize)")
        }
    }
}

/// `value` rounded up to a multiple of `multiple`, saturating at the largest multiple.
@inline(__always)
func roundUp(_ value: Int, _ multiple: Int) -> Int {
    let (sum, overflow) = value.addingReportingOverflow(multiple - 1)
    if overflow { return Int.max / multiple * multiple }
    return sum / multiple * multiple
}

/// `a × b`, or `Int.max` when it does not fit.
@inline(__always)
func saturatingProduct(_ a: Int, _ b: Int) -> Int {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    return overflow ? Int.max : product
}
