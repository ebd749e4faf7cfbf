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

    /// Row starts are aligned to this many bytes.
    public static let rowAlignment = 64

    /// Creates a configuration.
    public init(pixelWidth: Int, pixelHeight: Int, bytesPerPixel: Int, maximumCount: Int, identity: String, chunkBytes: Int = 2 << 20) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.bytesPerPixel = bytesPerPixel
        self.maximumCount = maximumCount
        self.identity = identity
        self.chunkBytes = chunkBytes
    }

    /// Bytes from the start of one row to the next: width × bytes per pixel, rounded up to 64.
    public var bytesPerRow: Int { roundUp(pixelWidth * bytesPerPixel, Self.rowAlignment) }

    /// Bytes of pixels in one image.
    public var pixelByteCount: Int { bytesPerRow * pixelHeight }

    /// Bytes one slot takes in the file: the pixels rounded up to whole pages, so every slot starts on a page.
    public var slotLength: Int { roundUp(pixelByteCount, SystemFile.pageSize) }

    /// Slots added (and mapped) together.
    public var slotsPerChunk: Int { max(1, min(maximumCount, max(4, chunkBytes / max(slotLength, 1)))) }

    func validate() throws {
        guard pixelWidth > 0, pixelHeight > 0, pixelWidth <= 1 << 15, pixelHeight <= 1 << 15 else {
            throw ImageCacheError(.invalidConfiguration, "image size \(pixelWidth)×\(pixelHeight) px is outside 1…32768")
        }
        guard [1, 2, 4].contains(bytesPerPixel) else {
            throw ImageCacheError(.invalidConfiguration, "bytes per pixel must be 1, 2 or 4, not \(bytesPerPixel)")
        }
        guard maximumCount > 0, maximumCount <= 1 << 24 else {
            throw ImageCacheError(.invalidConfiguration, "maximum count must be between 1 and \(1 << 24), not \(maximumCount)")
        }
        guard identity.utf8.count <= TableHeader.maximumIdentityLength else {
            throw ImageCacheError(.invalidConfiguration, "identity is longer than \(TableHeader.maximumIdentityLength) bytes")
        }
    }
}

@inline(__always)
func roundUp(_ value: Int, _ multiple: Int) -> Int {
    (value + multiple - 1) / multiple * multiple
}
