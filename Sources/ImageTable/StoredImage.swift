import FICCore
import Glibc
import SystemPackage

/// A zero-copy view of one image's pixels inside a mapped table file.
///
/// While you hold it, the pixels stay mapped and unchanged: eviction never reuses a held slot,
/// and resetting or closing the table never unmaps or truncates memory that a held image can
/// still read. Let go of it (drop the reference) when the image leaves the screen.
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
    /// The first pixel, in the shared mapping of the table file.
    public let baseAddress: UnsafeRawPointer

    private let store: TableStore
    private let slot: Int

    init(store: TableStore, slot: Int, pixels: UnsafeMutableRawPointer, entity: TableKey, source: TableKey) {
        self.store = store
        self.slot = slot
        self.entity = entity
        self.source = source
        width = store.header.pixelWidth
        height = store.header.pixelHeight
        bytesPerRow = store.header.bytesPerRow
        bytesPerPixel = store.header.bytesPerPixel
        baseAddress = UnsafeRawPointer(pixels)
    }

    deinit {
        store.lock.withLock { store.unpin(slot) }
    }

    /// Lets the kernel drop this image's pages from the process's resident memory now.
    ///
    /// The pixels stay in the file (and the page cache) and are mapped again on the next read, so
    /// the image stays valid. Use it after storing many images that will not be shown soon — a
    /// bulk import — so that resident memory does not grow with the number of images written.
    public func releaseResidentPages() {
        let length = roundUp(byteCount, SystemFile.pageSize)
        _ = madvise(UnsafeMutableRawPointer(mutating: baseAddress), length, MADV_DONTNEED)
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
