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
        var offset = 8
        var seenImageData = false
        var afterImageData = false
        while true {
            guard offset <= bytes.count - 12 else {
                if !seenImageData || Int(fic_png_inflater_rows(inflater)) < ihdr.height {
                    throw truncated(rows: Int(fic_png_inflater_rows(inflater)), of: ihdr.height)
                }
                if strict {
                    throw ImageCacheError(
                        .truncated, "The PNG ends without its IEND chunk. The file was cut short; download or copy it again.")
                }
                return
            }
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian)
            let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).bigEndian
            guard length <= bytes.count - offset - 12 else {
                throw truncated(rows: Int(fic_png_inflater_rows(inflater)), of: ihdr.height)
            }
            // Critical chunks (upper-case first letter) must be intact; ancillary ones too when strict.
            if type & 0x2000_0000 == 0 || strict {
                let expected = bytes.loadUnaligned(fromByteOffset: offset + 8 + length, as: UInt32.self).bigEndian
                guard fic_png_chunk_crc_matches(bytes.baseAddress! + offset + 4, length + 4, expected) != 0 else {
                    throw ImageCacheError(
                        .corruptData, "The PNG's \(name(type)) chunk fails its CRC check. The file is damaged; re-export it.")
                }
            }
            if type == Self.idat {
                guard !afterImageData else {
                    throw ImageCacheError(.corruptData, "The PNG's image data is split by other chunks. The file is damaged; re-export it.")
                }
                seenImageData = true
                try feed(inflater, bytes.baseAddress! + offset + 8, length, sink)
            } else if seenImageData {
                if !afterImageData {
                    afterImageData = true
                    let rows = Int(fic_png_inflater_rows(inflater))
                    guard rows == ihdr.height else { throw truncated(rows: rows, of: ihdr.height) }
                    if !strict { return }
                }
                if type == Self.iend { return }
                // A critical chunk (upper-case first letter) after the image data that is not IEND.
                if type & 0x2000_0000 == 0 {
                    throw ImageCacheError(
                        .corruptData, "The PNG has a critical \(name(type)) chunk after its image data. The file is damaged.")
                }
            }
            offset += 12 + length
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
                guard let base = payload.baseAddress, !payload.isEmpty else { return }
                try feed(inflater, base, payload.count, sink)
            }
        }
        return (Int(fic_png_inflater_rows(inflater)), fic_png_inflater_beyond_last_row(inflater) != 0)
    }

    /// Feeds `length` bytes of zlib data at `data` to `inflater`, rows going to `sink`.
    private static func feed(_ inflater: OpaquePointer, _ data: UnsafeRawPointer, _ length: Int, _ sink: RowSink) throws {
        let status = withExtendedLifetime(sink) {
            fic_png_inflater_feed(
                inflater, data, length,
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

    private static let idat: UInt32 = 0x4944_4154
    private static let iend: UInt32 = 0x4945_4E44

    private static func name(_ type: UInt32) -> String {
        let bytes = [UInt8(type >> 24 & 0xFF), UInt8(type >> 16 & 0xFF), UInt8(type >> 8 & 0xFF), UInt8(type & 0xFF)]
        return bytes.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            ? String(decoding: bytes, as: UTF8.self) : "unnamed"
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
