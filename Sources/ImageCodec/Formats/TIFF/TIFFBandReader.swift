#if TIFF
import CTIFFSupport
import CTIFF

/// Reads a TIFF page top to bottom a band at a time — a strip, a row of tiles, or a run of
/// scanlines of a strip too large to hold — and converts any of the band's rows into the
/// package's pixels. Only one band of stored samples is in memory, whatever the image size.
///
/// A strip or tile that cannot be decoded is shown grey (its damage listed in ``warnings``) when
/// damaged data is allowed, and refused otherwise; so is one whose bytes lie past the end of the
/// file (a file cut short after its directory).
final class TIFFBandReader {
    /// Opaque mid-grey, where a strip or tile could not be decoded (as damaged JPEGs show).
    static let grey: UInt32 = 0xFF80_8080

    private enum Mode {
        case strips(rowsPerStrip: Int, stripsPerPlane: Int)
        case scanlines
        case tiles(width: Int, length: Int, across: Int)
        case rgba(OpaquePointer)
    }

    let page: TIFFPage
    let plan: TIFFSamplePlan
    private let file: TIFFFile
    private let mode: Mode
    private let allowCorruptData: Bool
    /// Stored width and height.
    let width: Int, height: Int
    /// Rows in every band but the last.
    let bandHeight: Int
    /// Planes read separately (1 when the samples are contiguous).
    private let planes: Int
    /// Bytes of one stored row of one plane (all samples when contiguous) across the image or a tile.
    private let rowBytes: Int
    /// Bytes of one decoded strip or tile of one plane.
    private let chunkBytes: Int
    /// Bytes of one decoded tile (``TIFFBandLayout/tileBytes``).
    private let tileBytes: Int
    private let converter: TIFFSampleConverter
    /// The band's stored samples.
    private let band: LargeBufferPool.Storage
    /// One run of pixels with its planes interleaved (separate planes only).
    private let interleaved: LargeBufferPool.Storage?
    /// A whole decoded tile, for tiles taller than the image (their rows below it are dropped).
    private let tallTile: LargeBufferPool.Storage?
    /// The current band's first row and row count.
    private(set) var bandStart = 0, bandRows = 0
    /// Columns of the current band that could not be decoded.
    private var failedColumns: [Range<Int>] = []
    /// Rows of the current band (scanline runs) that could not be decoded.
    private var failedRows: [Bool]
    /// What was decoded past: counted per kind, described once each at the end.
    private var damaged = 0, pastEnd = 0, missing = 0, chunks = 0
    private var firstDamage = "", libtiffWarnings = 0, firstLibtiffWarning = ""
    /// What the colour step could not honour.
    private var colorWarnings: [String] = []

    /// The colour step the converted rows still need, when it was deferred (`defersColor`): the
    /// rows are in the file's colours, 4 bytes a pixel, for another thread to convert.
    let rowColor: RowColorStep?

    /// A reader of the current directory of `file`, described by `page`. With `defersColor`, rows
    /// of opaque 8-bit RGB are converted to 4 bytes a pixel but left in the file's colours,
    /// their conversion in ``rowColor``: a pyramid makes it on its writer thread, beside this one
    /// (samples of 16 bits and alpha are still converted here, before they are reduced or
    /// premultiplied, as ``SamplePipeline`` does).
    init(file: TIFFFile, page: TIFFPage, allowCorruptData: Bool, defersColor: Bool = false) throws {
        self.file = file
        self.page = page
        self.allowCorruptData = allowCorruptData
        let plan = try page.plan.get()
        self.plan = plan
        width = page.width
        height = page.height
        let layout = try TIFFBandLayout(page)
        let mode: Mode
        switch layout.kind {
        case .strips(let rowsPerStrip, let stripsPerPlane): mode = .strips(rowsPerStrip: rowsPerStrip, stripsPerPlane: stripsPerPlane)
        case .scanlines: mode = .scanlines
        case .tiles(let width, let length, let across): mode = .tiles(width: width, length: length, across: across)
        case .rgba: mode = .rgba(try file.beginRGBA())
        }
        self.mode = mode
        planes = layout.planes
        bandHeight = layout.bandHeight
        rowBytes = layout.rowBytes
        chunkBytes = layout.chunkBytes
        tileBytes = layout.tileBytes
        failedRows = Array(repeating: false, count: bandHeight)
        do {
            band = try LargeBufferPool.allocate(byteCount: layout.bandBytes, zeroed: false)
            tallTile = layout.tileBytes > layout.chunkBytes ? try LargeBufferPool.allocate(byteCount: layout.tileBytes, zeroed: false) : nil
            interleaved =
                planes > 1
                ? try LargeBufferPool.allocate(byteCount: layout.runPixels * plan.samplesPerPixel * plan.bitsPerSample / 8, zeroed: false)
                : nil
            // Grey stays here: SamplePipeline ignores an RGB profile on grey samples, which
            // RowColorStep would apply to the three equal channels.
            rowColor =
                defersColor && plan.layout == .rgb8
                ? RowColorStep(color: page.color, rows: .bgrx, isGrey: false, width: width, warnings: &colorWarnings) : nil
            converter = try TIFFSampleConverter(
                plan: plan, color: rowColor == nil ? page.color : .untagged, capacity: layout.runPixels, warnings: &colorWarnings)
        } catch {
            if case .rgba(let reader) = mode { fic_tiff_rgba_end(reader) }
            throw error
        }
    }

    deinit {
        if case .rgba(let reader) = mode { fic_tiff_rgba_end(reader) }
    }

    /// The pixel format of the converted rows.
    var pixelFormat: PixelFormat { converter.pipeline.pixelFormat }

    /// The last step of the conversion, for rows prepared with ``samples(row:into:)``.
    var pipeline: SamplePipeline { converter.pipeline }

    /// Decodes every band in turn, top to bottom, calling `body` after each with the band's rows
    /// ready for ``convert(row:into:)``.
    func readBands(_ body: () throws -> Void) throws {
        var start = 0
        while start < height {
            let rows = min(bandHeight, height - start)
            bandStart = start
            bandRows = rows
            failedColumns.removeAll(keepingCapacity: true)
            for i in 0..<rows { failedRows[i] = false }
            try readBand(index: start / bandHeight, rows: rows)
            try body()
            start += rows
        }
    }

    /// Converts row `index` of the current band (0 is its first) into `destination` (4 bytes a pixel).
    func convert(row index: Int, into destination: UnsafeMutableRawPointer) {
        precondition(index >= 0 && index < bandRows)
        let out = destination.assumingMemoryBound(to: UInt32.self)
        if failedRows[index] {
            out.update(repeating: Self.grey, count: width)
            return
        }
        forEachRun(ofRow: index) { source, x, count in
            converter.convert(source, count: count, into: destination + x * 4)
        }
        for range in failedColumns {
            (out + range.lowerBound).update(repeating: Self.grey, count: range.count)
        }
    }

    /// Writes row `index` of the current band (0 is its first) into `destination` as the
    /// samples SamplePipeline takes (``TIFFSamplePlan/layout``, opaque layouts only), for a
    /// decode that shrinks before it converts.
    func samples(row index: Int, into destination: UnsafeMutableRawPointer) {
        precondition(index >= 0 && index < bandRows && !plan.layout.hasAlpha)
        let size = plan.layout.bytesPerPixel
        if failedRows[index] {
            fillGrey(destination, count: width)
            return
        }
        forEachRun(ofRow: index) { source, x, count in
            converter.prepare(source, count: count, into: destination + x * size)
        }
        for range in failedColumns {
            fillGrey(destination + range.lowerBound * size, count: range.count)
        }
    }

    /// Calls `body` with the stored samples of row `index` of the current band, contiguous, a run
    /// at a time: the whole row from a strip, one tile's part of it from a row of tiles
    /// (`x` is the run's first column); separate planes are interleaved first.
    private func forEachRun(ofRow index: Int, _ body: (_ source: UnsafeRawPointer, _ x: Int, _ count: Int) -> Void) {
        func run(_ start: UnsafeMutableRawPointer, x: Int, count: Int) {
            if planes > 1 {
                interleave(from: start, planeStride: chunkBytes, rowOffset: index * rowBytes, count: count)
                body(interleaved!.base, x, count)
            } else {
                body(start + index * rowBytes, x, count)
            }
        }
        switch mode {
        case .strips, .scanlines, .rgba:
            run(band.base, x: 0, count: width)
        case .tiles(let tileWidth, _, let across):
            for tile in 0..<across {
                let x = tile * tileWidth
                run(band.base + tile * planes * chunkBytes, x: x, count: min(tileWidth, width - x))
            }
        }
    }

    private func fillGrey(_ destination: UnsafeMutableRawPointer, count: Int) {
        let grey = TIFFSampleConverter.grey(plan.layout)
        grey.withUnsafeBytes { pixel in
            for i in 0..<count { (destination + i * pixel.count).copyMemory(from: pixel.baseAddress!, byteCount: pixel.count) }
        }
    }

    /// What was decoded past, for the image's warnings (the colour step's first).
    var warnings: [String] {
        var out = colorWarnings
        let unit: String
        switch mode {
        case .strips: unit = "strips"
        case .scanlines: unit = "rows"
        case .tiles: unit = "tiles"
        case .rgba: unit = "bands of rows"
        }
        if pastEnd > 0 {
            out.append(
                "the TIFF file was cut short: \(pastEnd) of its \(chunks) \(unit) \(pastEnd == 1 ? "lies" : "lie") past its end and \(pastEnd == 1 ? "is" : "are") shown grey"
            )
        }
        if missing > 0 {
            out.append(
                "\(missing) of the TIFF's \(chunks) \(unit) \(missing == 1 ? "has" : "have") no data (offset 0) and \(missing == 1 ? "is" : "are") shown grey"
            )
        }
        if damaged > 0 {
            out.append(
                "\(damaged) of the TIFF's \(chunks) \(unit) could not be decoded and \(damaged == 1 ? "is" : "are") shown grey (libtiff: \(file.describe(firstDamage)))"
            )
        }
        if libtiffWarnings > 0 {
            out.append("libtiff warned while decoding the TIFF's pixels: \(firstLibtiffWarning)")
        }
        return out
    }

    // MARK: Reading

    /// Interleaves `count` pixels of each plane's row at `rowOffset` (planes `planeStride` apart).
    private func interleave(from base: UnsafeMutableRawPointer, planeStride: Int, rowOffset: Int, count: Int) {
        let out = interleaved!.base
        if plan.bitsPerSample == 16 {
            let o = out.assumingMemoryBound(to: UInt16.self)
            for p in 0..<planes {
                let plane = (base + p * planeStride + rowOffset).assumingMemoryBound(to: UInt16.self)
                for x in 0..<count { o[x * planes + p] = plane[x] }
            }
        } else {
            let o = out.assumingMemoryBound(to: UInt8.self)
            for p in 0..<planes {
                let plane = (base + p * planeStride + rowOffset).assumingMemoryBound(to: UInt8.self)
                for x in 0..<count { o[x * planes + p] = plane[x] }
            }
        }
    }

    private func readBand(index: Int, rows: Int) throws {
        let tiff = file.tiff
        switch mode {
        case .strips(_, let stripsPerPlane):
            for plane in 0..<planes {
                let strip = UInt32(plane * stripsPerPlane + index)
                let size = rows * rowBytes
                let ok = try read(chunk: strip, kind: "strip", into: band.base + plane * chunkBytes) { buffer in
                    TIFFReadEncodedStrip(tiff, strip, buffer, tmsize_t(size)) == size
                }
                if !ok {
                    failedColumns = [0..<width]
                    return
                }
            }
        case .scanlines:
            for row in 0..<rows {
                let ok = try read(
                    chunk: TIFFComputeStrip(tiff, UInt32(bandStart + row), 0), kind: "strip", into: band.base + row * rowBytes
                ) { buffer in
                    TIFFReadScanline(tiff, buffer, UInt32(bandStart + row), 0) == 1
                }
                if !ok { failedRows[row] = true }
            }
        case .tiles(let tileWidth, let tileLength, let across):
            for column in 0..<across {
                for plane in 0..<planes {
                    let tile = TIFFComputeTile(tiff, UInt32(column * tileWidth), UInt32(index * tileLength), 0, UInt16(plane))
                    let destination = band.base + (column * planes + plane) * chunkBytes
                    let ok = try read(chunk: tile, kind: "tile", into: tallTile?.base ?? destination) { buffer in
                        let size = tallTile == nil ? chunkBytes : tileBytes
                        return TIFFReadEncodedTile(tiff, tile, buffer, tmsize_t(size)) == size
                    }
                    if ok, let tallTile { destination.copyMemory(from: tallTile.base, byteCount: chunkBytes) }
                    if !ok {
                        failedColumns.append((column * tileWidth)..<min(width, (column + 1) * tileWidth))
                        break
                    }
                }
            }
        case .rgba(let reader):
            let start = UInt32(bandStart)
            // libtiff's RGBA reader fails the whole band at its first chunk without data: such a
            // band is never handed to it (each tile of a wide band failing in turn took seconds).
            let tileWidth = page.raw.tiled != 0 ? max(1, Int(page.raw.tile_width)) : width
            for x in stride(from: 0, to: width, by: tileWidth) {
                let chunk = page.raw.tiled != 0 ? TIFFComputeTile(tiff, UInt32(x), start, 0, 0) : TIFFComputeStrip(tiff, start, 0)
                if chunk < page.raw.chunk_count, file.place(ofChunk: chunk) == .missing {
                    _ = try read(chunk: chunk, kind: page.raw.tiled != 0 ? "tile" : "strip", into: band.base) { _ in false }
                    failedColumns = [0..<width]
                    return
                }
            }
            let ok = try read(chunk: nil, kind: page.raw.tiled != 0 ? "tile" : "strip", into: band.base) { buffer in
                fic_tiff_rgba_read(reader, buffer.assumingMemoryBound(to: UInt32.self), start, UInt32(rows)) == 1
            }
            if !ok { failedColumns = [0..<width] }
        }
    }

    /// Reads one strip, tile or band with `body` into `buffer`: true when it decoded. A failure
    /// is refused when damaged data is not allowed (and always when the file could not be read);
    /// otherwise it is counted for the warnings and the caller shows the chunk grey.
    private func read(chunk: UInt32?, kind: String, into buffer: UnsafeMutableRawPointer, _ body: (UnsafeMutableRawPointer) -> Bool) throws
        -> Bool
    {
        chunks += 1
        if let chunk {
            guard chunk < page.raw.chunk_count else {
                throw ImageCacheError(
                    .corruptData, "The TIFF's \(kind) \(chunk) is outside its \(page.raw.chunk_count) \(kind)s. The file is damaged.")
            }
            switch file.place(ofChunk: chunk) {
            case .inFile: break
            case .pastEnd:
                guard allowCorruptData else {
                    throw ImageCacheError(
                        .truncated,
                        "The TIFF's \(kind) \(chunk) lies past the end of the file (\(file.size) bytes): the file was cut short; download or copy it again."
                    )
                }
                pastEnd += 1
                return false
            case .missing:
                // Never handed to libtiff: reading the header as pixels would show a wrong
                // picture, and failing reads one by one took seconds on a fuzzer's 16,364 tiles.
                guard allowCorruptData else {
                    throw ImageCacheError(.corruptData, "The TIFF's \(kind) \(chunk) has no data (its offset is 0). The file is damaged.")
                }
                missing += 1
                return false
            }
        }
        file.clearMessages()
        let ok = body(buffer)
        if let failure = file.readFailure { throw failure }
        if file.warningCount > 0 {
            guard allowCorruptData else {
                throw ImageCacheError(
                    .corruptData,
                    "The TIFF's \(kind) \(chunk.map(String.init) ?? "") is damaged (libtiff: \(file.firstWarning)). The file is damaged.")
            }
            if libtiffWarnings == 0 { firstLibtiffWarning = file.firstWarning }
            libtiffWarnings += file.warningCount
        }
        if !ok || file.errorCount > 0 {
            guard allowCorruptData else {
                throw ImageCacheError(
                    .corruptData,
                    "The TIFF's \(kind) \(chunk.map(String.init) ?? "") cannot be decoded (libtiff: \(file.describe(file.firstError))). The file is damaged."
                )
            }
            if damaged == 0 { firstDamage = file.firstError }
            damaged += 1
            return false
        }
        return true
    }
}
#endif
