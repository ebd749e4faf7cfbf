import CCairo
import ImageCodec
import ImageTable

/// An image returned by the cache: a zero-copy view of the pixels in the mapped table file, or
/// of a frame of an animation played from a ring (``ImageCache/cachedImage(for:format:frame:)``),
/// which lives in memory of its own (as does, rarely, an image the table could not take because
/// another process was stopped in the middle of a store).
///
/// Nothing is decoded or copied to return it. While you hold it, its pixels stay mapped and
/// unchanged (eviction, replacement and reset never touch a held image's memory; a ring frame
/// dropped from its ring stays valid while held). Treat the pixels as read-only.
public final class CachedImage: Sendable {
    /// Where the pixels are.
    enum Storage: Sendable {
        /// The table's image: the mapped slot, pinned while this object lives (the object itself
        /// holds the pin, so that a hit makes one object).
        case table(PinnedSlot)
        /// Memory of its own, freed when the last holder lets go: a frame decoded into a ring, or
        /// an image the table could not take (another process's store held it too long).
        case ring(RingFrame)
    }

    /// Private because the storage engine's types are not the API; the properties and methods
    /// below are what callers need of either kind.
    private let storage: Storage
    private let table: FormatTable
    /// The identifier of the entity the image belongs to, for ``description``.
    let entityID: String
    /// Which frame of the entity's animation it is: 0 for the entity's own image (a still image,
    /// or an animation's first frame).
    let frame: Int

    /// The image of a slot pinned for it: its release lets go of the pin.
    init(table: FormatTable, pinned: PinnedSlot, entityID: String, frame: Int = 0) {
        self.table = table
        self.storage = .table(pinned)
        self.entityID = entityID
        self.frame = frame
    }

    deinit {
        if case .table(let pin) = storage { table.table.unpin(pin) }
    }

    init(table: FormatTable, ringFrame: RingFrame, entityID: String, frame: Int = 0) {
        self.table = table
        self.storage = .ring(ringFrame)
        self.entityID = entityID
        self.frame = frame
    }

    /// The format the image belongs to.
    public var format: ImageFormat { table.format }

    /// Width in pixels.
    public var width: Int { table.table.configuration.pixelWidth }
    /// Height in pixels.
    public var height: Int { table.table.configuration.pixelHeight }
    /// Bytes from one row to the next: a multiple of 64.
    public var bytesPerRow: Int { table.table.configuration.bytesPerRow }
    /// How the pixels are laid out.
    public var style: PixelStyle { table.format.style }
    /// The first pixel (valid while the image is held): inside the package only; others read
    /// the pixels through ``withUnsafeBytes(_:)``.
    @usableFromInline package var baseAddress: UnsafeRawPointer {
        switch storage {
        case .table(let pin): pin.baseAddress
        case .ring(let frame): UnsafeRawPointer(frame.pixels.base)
        }
    }

    /// Lets the kernel drop this image's pages from resident memory; they are read back from the
    /// file on the next access. Use it when storing many images that will not be shown soon.
    /// (A ring frame has no file behind it: its pages stay.)
    public func releaseResidentPages() {
        if case .table(let pin) = storage { table.table.releaseResidentPages(of: pin) }
    }

    /// Calls `body` with the pixel bytes (`bytesPerRow × height`).
    // Inlinable, so that it is specialised in the caller for the caller's result type: unspecialised,
    // a frame's read of its pixels instantiated generic metadata on every call.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) {
            try body(UnsafeRawBufferPointer(start: baseAddress, count: bytesPerRow * height))
        }
    }

    /// A cairo image surface over the pixels, without copying; use it as a drawing source only.
    /// The surface keeps this image alive. 8-bit gray images have no cairo surface (cairo's only
    /// 8-bit format is alpha coverage): read their bytes directly.
    public func makeCairoSurface() throws -> CairoImageSurface {
        if style == .gray8 {
            throw ImageCacheError(.drawingFailed, "cairo has no 8-bit gray surface; read the bytes directly", format: format.name)
        }
        return try CairoImageSurface(
            pixels: UnsafeMutableRawPointer(mutating: baseAddress), width: width, height: height, bytesPerRow: bytesPerRow, format: style,
            owner: self)
    }

    /// The image encoded as PNG (premultiplied pixels are un-premultiplied).
    public func pngData() throws -> [UInt8] {
        try withExtendedLifetime(self) {
            try PNGEncoder.encode(pixels: baseAddress, width: width, height: height, bytesPerRow: bytesPerRow, format: style)
        }
    }

    /// Writes the image as a PNG file.
    public func writePNG(to path: String) throws {
        try withExtendedLifetime(self) {
            try PNGEncoder.write(pixels: baseAddress, width: width, height: height, bytesPerRow: bytesPerRow, format: style, to: path)
        }
    }
}

extension CachedImage: CustomStringConvertible, CustomDebugStringConvertible {
    /// The format, pixel size, pixel style and entity (its identifier quoted and escaped as a
    /// Swift string literal), and the frame of an animation's later frame:
    /// `CachedImage(thumb, 80×60 px, rgb565, entity "coffee")`, or
    /// `CachedImage(thumb, 80×60 px, rgb565, entity "cat", frame 3)`.
    public var description: String {
        "CachedImage(\(format.name), \(width)×\(height) px, \(style.rawValue), entity \(entityID.debugDescription)\(frame > 0 ? ", frame \(frame)" : ""))"
    }

    /// ``description`` with the row length and where the pixels are: the mapped table file, or
    /// memory of the image's own (a ring's frame, or an image the table could not take).
    public var debugDescription: String {
        let place =
            switch storage {
            case .table: "in the table file"
            case .ring: "in memory of its own"
            }
        return String(description.dropLast()) + ", \(bytesPerRow) bytes per row, \(place))"
    }
}
