import Glibc

/// A zero-copy view of one image's pixels inside a mapped table file.
///
/// While you hold it, the pixels stay mapped and unchanged: eviction never reuses a held slot,
/// and closing or resetting the table first turns a held image's pages into a private copy.
/// Let go of it (drop the reference) when the image leaves the screen. Read the pixels with
/// ``withUnsafeBytes(_:)``.
///
/// `@unchecked Sendable` for the pixel pointer alone: the pixels never change while the image is
/// held (its slot is pinned under the table's lock, and a close or reset copies them first).
public final class StoredImage: @unchecked Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from one row to the next: a multiple of 64.
    public let bytesPerRow: Int
    /// Bytes per pixel (1, 2 or 4).
    public let bytesPerPixel: Int
    /// The entity this image belongs to.
    public let entity: TableKey
    /// The version of the source image it was drawn from.
    public let source: TableKey
    /// The first pixel. Valid only while this image is held: use it only inside
    /// ``withUnsafeBytes(_:)`` or while keeping the image alive.
    package let baseAddress: UnsafeRawPointer

    private let table: ConditionBox<TableState>
    private let pin: PinnedSlot

    init(table: ConditionBox<TableState>, pin: PinnedSlot, configuration: TableConfiguration, entity: TableKey) {
        self.table = table
        self.pin = pin
        self.entity = entity
        source = pin.source
        width = configuration.pixelWidth
        height = configuration.pixelHeight
        bytesPerRow = configuration.bytesPerRow
        bytesPerPixel = configuration.bytesPerPixel
        baseAddress = pin.baseAddress
    }

    deinit {
        pin.release(in: table)
    }

    /// Lets the kernel drop this image's pages from the process's resident memory now.
    ///
    /// The pixels stay in the file (and the page cache) and are mapped again on the next read, so
    /// the image stays valid. Use it after storing many images that will not be shown soon — a
    /// bulk import — so that resident memory does not grow with the number of images written.
    /// (An image detached from its file by a close keeps its pages.)
    public func releaseResidentPages() {
        pin.releaseResidentPages(byteCount: byteCount, in: table)
    }

    /// The number of bytes of pixels (`bytesPerRow × height`).
    public var byteCount: Int { bytesPerRow * height }

    /// Calls `body` with the pixel bytes. The buffer is valid only during the call; the image
    /// itself stays valid for as long as you hold it.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) {
            try body(UnsafeRawBufferPointer(start: baseAddress, count: byteCount))
        }
    }
}
