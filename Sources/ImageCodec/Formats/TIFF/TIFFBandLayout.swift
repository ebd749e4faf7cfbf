#if TIFF
import CTIFF

/// How a TIFF page is read band by band — a strip, a row of tiles, or a run of scanlines of a
/// strip too large to hold — and what one band of stored samples needs in memory. Checked before
/// anything is read: a hostile layout (absurd tiles, a strip of gigabytes with separate planes, too
/// few strips for the size) is refused here.
struct TIFFBandLayout {
    /// Strips above this many decoded bytes are read a run of scanlines at a time.
    static let maximumStripBytes = 32 << 20
    /// The most stored samples one band may hold (a row of tiles, or a strip of separate planes).
    static let maximumBandBytes = 512 << 20
    /// Bytes of the scanline runs read from a large strip.
    static let scanlineRunBytes = 4 << 20

    /// The kind of band.
    enum Kind {
        /// One strip of every plane.
        case strips(rowsPerStrip: Int, stripsPerPlane: Int)
        /// A run of scanlines of a huge strip (contiguous samples only).
        case scanlines
        /// One row of tiles of every plane.
        case tiles(width: Int, length: Int, across: Int)
        /// Rows from libtiff's RGBA reader (a strip's or a tile's height at a time).
        case rgba
    }

    var kind: Kind
    /// Planes read separately (1 when the samples are contiguous).
    var planes: Int
    /// Rows in every band but the last.
    var bandHeight: Int
    /// Bytes of one stored row of one plane, across the image or a tile.
    var rowBytes: Int
    /// Bytes of a band's part of one strip or tile of one plane (of one scanline when read by
    /// scanlines).
    var chunkBytes: Int
    /// Bytes libtiff decodes for one tile of one plane: ``chunkBytes``, or more for tiles taller
    /// than the image, whose rows below it the band does not hold.
    var tileBytes = 0
    /// Bytes of a band's stored samples.
    var bandBytes: Int
    /// The most pixels converted at once: the image's width, or a tile's.
    var runPixels: Int

    /// Bytes the reader holds besides the band: the interleaved run and the converter's scratch.
    var workingBytes: Int { runPixels * 16 }

    /// How `page` is read, or why it cannot be.
    init(_ page: TIFFPage) throws {
        let plan = try page.plan.get()
        let raw = page.raw
        let width = page.width, height = page.height
        let separate = plan.source == .native && raw.planar_config == UInt16(PLANARCONFIG_SEPARATE) && plan.samplesPerPixel > 1
        planes = separate ? plan.samplesPerPixel : 1
        func planeRowBytes(_ pixels: Int) -> Int { separate ? pixels * plan.bitsPerSample / 8 : plan.bytes(pixels: pixels) }
        runPixels = width
        switch plan.source {
        case .rgba:
            kind = .rgba
            bandHeight = max(1, min(height, raw.tiled != 0 ? Int(raw.tile_length) : Int(raw.rows_per_strip)))
            rowBytes = width * 4
            chunkBytes = rowBytes * bandHeight
            bandBytes = chunkBytes
        case .native where raw.tiled != 0:
            let tileWidth = Int(raw.tile_width), tileLength = Int(raw.tile_length)
            guard tileWidth > 0, tileLength > 0, tileWidth <= 1 << 16, tileLength <= 1 << 16 else {
                throw ImageCacheError(.corruptData, "The TIFF's tiles are \(tileWidth)×\(tileLength) pixels. The file is damaged.")
            }
            let across = (width + tileWidth - 1) / tileWidth, down = (height + tileLength - 1) / tileLength
            guard Int(raw.chunk_count) >= across * down * planes else {
                throw ImageCacheError(
                    .corruptData,
                    "The TIFF has \(raw.chunk_count) tiles where its size needs \(across * down * planes). The file is damaged.")
            }
            kind = .tiles(width: tileWidth, length: tileLength, across: across)
            rowBytes = planeRowBytes(tileWidth)
            tileBytes = rowBytes * tileLength
            guard tileBytes <= Self.maximumStripBytes else {
                throw ImageCacheError(
                    .overMemoryBudget,
                    "The TIFF's tiles are \(tileWidth)×\(tileLength) pixels, \(tileBytes >> 20) MiB each decoded, over the \(Self.maximumStripBytes >> 20) MiB allowed; the file is hostile, or save it with smaller tiles."
                )
            }
            // A tile may be taller than the image (allowed, and a way to make a reader hold rows
            // that do not exist): the band holds the image's rows only.
            bandHeight = min(tileLength, height)
            chunkBytes = rowBytes * bandHeight
            bandBytes = chunkBytes * across * planes
            runPixels = tileWidth
        case .native:
            let rowsPerStrip = max(1, min(height, Int(raw.rows_per_strip)))
            let stripsPerPlane = (height + rowsPerStrip - 1) / rowsPerStrip
            guard Int(raw.chunk_count) >= stripsPerPlane * planes else {
                throw ImageCacheError(
                    .corruptData,
                    "The TIFF has \(raw.chunk_count) strips where its size needs \(stripsPerPlane * planes). The file is damaged.")
            }
            rowBytes = planeRowBytes(width)
            let stripBytes = rowBytes * rowsPerStrip
            if stripBytes > Self.maximumStripBytes && !separate {
                // One huge strip (a whole image in one, as some writers do): a run of scanlines at a time.
                kind = .scanlines
                bandHeight = max(1, min(rowsPerStrip, Self.scanlineRunBytes / max(rowBytes, 1)))
                chunkBytes = rowBytes
                bandBytes = rowBytes * bandHeight
            } else {
                kind = .strips(rowsPerStrip: rowsPerStrip, stripsPerPlane: stripsPerPlane)
                bandHeight = rowsPerStrip
                chunkBytes = stripBytes
                bandBytes = stripBytes * planes
            }
        }
        guard bandBytes <= Self.maximumBandBytes else {
            throw ImageCacheError(
                .overMemoryBudget,
                "The TIFF's \(raw.tiled != 0 ? "row of tiles" : "strip") needs \(bandBytes >> 20) MiB decoded, over the \(Self.maximumBandBytes >> 20) MiB allowed; the file is hostile, or save it with smaller strips or tiles."
            )
        }
    }
}
#endif
