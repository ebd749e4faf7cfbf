import CImageCodecSupport

/// The image data of a non-interlaced PNG held in memory, decoded without libspng: every chunk is
/// found by its length and CRC-checked (critical ones always, ancillary ones when strict), the
/// IDAT payloads inflated with zlib and unfiltered row by row in C (`fic_png_inflater`), and the
/// rows handed out as stored samples (16-bit ones big-endian, as stored). libspng has parsed the
/// chunks before the image data (header, palette, transparency).
enum PNGImageData {
    /// Calls `row(index, samples)` for every row, in order.
    ///
    /// - Parameters:
    ///   - strict: also check the chunks after the image data, up to `IEND`.
    /// - Throws: ``ImageCacheError``: `.truncated` when the data ends early, `.corruptData` for bad
    ///   CRCs, zlib data or filter types; errors `row` throws.
    static func decodeRows(
        _ bytes: UnsafeRawBufferPointer, ihdr: (width: Int, height: Int, bitDepth: Int, channels: Int), strict: Bool,
        row: (Int, UnsafeRawPointer) throws -> Void
    ) throws {
        try withoutActuallyEscaping(row) { row in
            try decodeRows(bytes, ihdr: ihdr, strict: strict, sink: RowSink(row))
        }
    }

    private static func decodeRows(
        _ bytes: UnsafeRawBufferPointer, ihdr: (width: Int, height: Int, bitDepth: Int, channels: Int), strict: Bool, sink: RowSink
    ) throws {
        guard let inflater = fic_png_inflater_create(UInt32(ihdr.width), UInt32(ihdr.height), Int32(ihdr.bitDepth), Int32(ihdr.channels))
        else {
            throw ImageCacheError(.overMemoryBudget, "Could not allocate a PNG inflater: out of memory.")
        }
        defer { fic_png_inflater_destroy(inflater) }
        var chunks = PNGChunks(bytes)
        var seenImageData = false
        var afterImageData = false
        while let chunk = chunks.next() {
            // Critical chunks (upper-case first letter) must be intact; ancillary ones too when strict.
            if chunk.isCritical || strict {
                guard chunks.crcMatches(chunk) else {
                    throw ImageCacheError(
                        .corruptData, "The PNG's \(chunk.name) chunk fails its CRC check. The file is damaged; re-export it.")
                }
            }
            if chunk.type == PNGChunk.IDAT {
                guard !afterImageData else {
                    throw ImageCacheError(.corruptData, "The PNG's image data is split by other chunks. The file is damaged; re-export it.")
                }
                seenImageData = true
                try feed(inflater, chunks.data(chunk), sink)
            } else if seenImageData {
                if !afterImageData {
                    afterImageData = true
                    let rows = Int(fic_png_inflater_rows(inflater))
                    guard rows == ihdr.height else { throw truncated(rows: rows, of: ihdr.height) }
                    if !strict { return }
                }
                if chunk.type == PNGChunk.IEND { return }
                // A critical chunk after the image data that is not IEND.
                if chunk.isCritical {
                    throw ImageCacheError(
                        .corruptData, "The PNG has a critical \(chunk.name) chunk after its image data. The file is damaged.")
                }
            }
        }
        // The bytes end before the next chunk is complete.
        if !seenImageData || Int(fic_png_inflater_rows(inflater)) < ihdr.height {
            throw truncated(rows: Int(fic_png_inflater_rows(inflater)), of: ihdr.height)
        }
        if strict {
            throw ImageCacheError(.truncated, "The PNG ends without its IEND chunk. The file was cut short; download or copy it again.")
        }
    }

    /// Inflates and unfilters the image data of one non-interlaced `shape` image whose zlib
    /// stream comes in pieces (an APNG frame's `fdAT` payloads): `payloads` hands each piece to
    /// the function it is given, in order, and `row(index, samples)` gets every row as stored.
    /// Returns how many rows were complete, and whether a whole row of data came after the last
    /// (which a still PNG ignores, as libpng does, and an APNG frame must not have).
    ///
    /// - Throws: `.corruptData` for bad zlib data or filter types; errors `payloads` or `row` throw.
    static func inflateRows(
        shape: (width: Int, height: Int, bitDepth: Int, channels: Int),
        payloads: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void,
        row: (Int, UnsafeRawPointer) throws -> Void
    ) throws -> (rows: Int, beyondLastRow: Bool) {
        guard
            let inflater = fic_png_inflater_create(UInt32(shape.width), UInt32(shape.height), Int32(shape.bitDepth), Int32(shape.channels))
        else {
            throw ImageCacheError(.overMemoryBudget, "Could not allocate a PNG inflater: out of memory.")
        }
        defer { fic_png_inflater_destroy(inflater) }
        try withoutActuallyEscaping(row) { row in
            let sink = RowSink(row)
            try payloads { payload in
                try feed(inflater, payload, sink)
            }
        }
        return (Int(fic_png_inflater_rows(inflater)), fic_png_inflater_beyond_last_row(inflater) != 0)
    }

    /// Feeds the zlib data `data` to `inflater`, rows going to `sink`.
    private static func feed(_ inflater: OpaquePointer, _ data: UnsafeRawBufferPointer, _ sink: RowSink) throws {
        guard let base = data.baseAddress, !data.isEmpty else { return }
        let status = withExtendedLifetime(sink) {
            fic_png_inflater_feed(
                inflater, base, data.count,
                { context, index, samples in
                    guard let context, let samples else { return 1 }
                    return Unmanaged<RowSink>.fromOpaque(context).takeUnretainedValue().deliver(Int(index), samples)
                }, Unmanaged.passUnretained(sink).toOpaque())
        }
        if let error = sink.error { throw error }
        switch Int(status) {
        case Int(FIC_PNG_OK): break
        case Int(FIC_PNG_MEMORY): throw ImageCacheError(.overMemoryBudget, "Inflating the PNG ran out of memory.")
        default:
            throw ImageCacheError(
                .corruptData, "The PNG's image data is corrupt (bad compressed data or filter type). Re-export the image.")
        }
    }

    private static func truncated(rows: Int, of height: Int) -> ImageCacheError {
        ImageCacheError(.truncated, "The PNG data ends after \(rows) of \(height) rows. The file was cut short; download or copy it again.")
    }

    /// Carries the caller's row closure (and its error) through the C callback.
    private final class RowSink {
        let body: (Int, UnsafeRawPointer) throws -> Void
        var error: (any Error)?

        init(_ body: @escaping (Int, UnsafeRawPointer) throws -> Void) {
            self.body = body
        }

        func deliver(_ index: Int, _ samples: UnsafePointer<UInt8>) -> Int32 {
            do {
                try body(index, UnsafeRawPointer(samples))
                return 0
            } catch {
                self.error = error
                return 1
            }
        }
    }
}
