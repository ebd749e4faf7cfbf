import CTileSupport
import FICCore
import ImageCodec

extension PyramidTIFFReader {
    /// Tile (`column`, `row`) of level `level` decoded: `tileHeight` rows of `tileWidth` pixels,
    /// 4 bytes each, BGRA premultiplied (opaque pixels have alpha 255), the padding of edge tiles
    /// as stored. Reads JPEG (complete tiles, or abbreviated ones with the level's JPEGTables
    /// spliced in), deflate (with or without horizontal prediction) and uncompressed tiles of grey,
    /// RGB or YCbCr-in-JPEG samples, with or without alpha.
    ///
    /// - Throws: `.unsupportedFormat` for samples this does not convert; `.corruptData` for data
    ///   that does not decode to the tile's size; the errors of ``tileBytes(level:column:row:)``.
    public func decodeTile(level: Int, column: Int, row: Int) throws -> [UInt8] {
        try decodeTile(stored: try tileBytes(level: level, column: column, row: row), level: level)
    }

    /// A tile of level `level` decoded from its stored bytes `stored` (read elsewhere: by an HTTP
    /// range, for a remote file), as ``decodeTile(level:column:row:)`` decodes it.
    ///
    /// - Throws: `.invalidArgument` for a level the file does not have; the decode's errors.
    public func decodeTile(stored: [UInt8], level: Int) throws -> [UInt8] {
        guard levels.indices.contains(level) else { throw ImageCacheError(.invalidArgument, "there is no level \(level)") }
        let info = levels[level]
        switch info.compression {
        case TIFFTag.Compression.jpeg:
            return try Self.decodeJPEG(stored, level: info)
        case TIFFTag.Compression.adobeDeflate, TIFFTag.Compression.oldDeflate:
            return try Self.pixels(fromSamples: Self.inflate(stored, level: info), level: info)
        default:
            return try Self.pixels(fromSamples: stored, level: info)
        }
    }

    /// A JPEG tile decoded by ImageCodec, its tables spliced in first when the level has them.
    private static func decodeJPEG(_ stored: [UInt8], level: PyramidTIFFLevel) throws -> [UInt8] {
        guard level.samplesPerPixel == 3 || level.samplesPerPixel == 1 else {
            throw ImageCacheError(.unsupportedFormat, "JPEG tiles of \(level.samplesPerPixel) samples are not read")
        }
        let stream = completeJPEG(stored, level: level)
        // A tile's stream may claim any size: nothing larger than a tile is decoded, and an EXIF
        // orientation inside a tile is no orientation of the pyramid's.
        var options = DecodingOptions()
        options.maximumPixelCount = level.tileWidth * level.tileHeight
        options.applyOrientation = false
        let image: DecodedImage
        do {
            image = try ImageDecoder.decode(stream, options: options)
        } catch {
            throw ImageCacheError(.corruptData, "a JPEG tile of level \(level.index) does not decode", underlying: error)
        }
        guard image.width == level.tileWidth, image.height == level.tileHeight else {
            throw ImageCacheError(
                .corruptData,
                "a JPEG tile of level \(level.index) is \(image.width)×\(image.height), not \(level.tileWidth)×\(level.tileHeight)")
        }
        // The decoder's grey or BGRX rows become BGRA as every decoder's do.
        var warnings: [String] = []
        let pipeline = SamplePipeline(
            layout: image.pixelFormat.bytesPerPixel == 1 ? .gray8 : .bgrx8, color: .untagged, warnings: &warnings)
        let width = level.tileWidth
        return image.withUnsafeBytes { raw in
            [UInt8](unsafeUninitializedCapacity: width * image.height * 4) { out, initialized in
                for y in 0..<image.height {
                    pipeline.convert(raw.baseAddress! + y * image.bytesPerRow, to: out.baseAddress! + y * width * 4, count: width)
                }
                initialized = width * image.height * 4
            }
        }
    }

    /// A JPEG tile's stream made whole: the level's JPEGTables (quantisation and Huffman tables
    /// that abbreviated tiles leave out) spliced in after the tile's SOI, so that any JPEG decoder
    /// reads it alone. A tile without tables is returned as it is.
    static func completeJPEG(_ stored: [UInt8], level: PyramidTIFFLevel) -> [UInt8] {
        guard let tables = level.jpegTables, tables.count >= 4, stored.count >= 2 else { return stored }
        // The tables are a JPEG stream of their own (SOI, tables, EOI): their markers go
        // between the tile's SOI and the rest of the tile.
        return Array(stored[0..<2]) + tables[2..<(tables.count - 2)] + stored[2...]
    }

    /// Tile (`column`, `row`) of level `level` as a complete JPEG file, its stored bytes unchanged
    /// (with the level's tables spliced in), when the level's tiles are JPEG-compressed YCbCr or
    /// grey (what any JPEG decoder takes for what they are); nil for other compressions.
    public func storedJPEG(level: Int, column: Int, row: Int) throws -> [UInt8]? {
        let info = levels[level]
        guard info.compression == TIFFTag.Compression.jpeg,
            (info.photometric == TIFFTag.Photometric.yCbCr && info.samplesPerPixel == 3)
                || (info.photometric == TIFFTag.Photometric.minIsBlack && info.samplesPerPixel == 1)
        else { return nil }
        return Self.completeJPEG(try tileBytes(level: level, column: column, row: row), level: info)
    }

    /// A deflated tile's samples: exactly a tile's worth.
    private static func inflate(_ stored: [UInt8], level: PyramidTIFFLevel) throws -> [UInt8] {
        let expected = level.tileWidth * level.tileHeight * level.samplesPerPixel
        var produced = 0
        var failed = false
        let samples = [UInt8](unsafeUninitializedCapacity: expected) { out, initialized in
            failed =
                stored.withUnsafeBufferPointer { fic_tile_inflate($0.baseAddress, $0.count, out.baseAddress, expected, &produced) } != 0
            initialized = failed ? 0 : produced
        }
        guard !failed, produced == expected else {
            throw ImageCacheError(
                .corruptData, "a deflated tile of level \(level.index) \(failed ? "is damaged" : "has \(produced) of \(expected) bytes")")
        }
        return samples
    }

    /// Stored samples as BGRA premultiplied pixels: prediction undone here, then the level's
    /// sample plan applied by ImageCodec's TIFF sample converter (the one the TIFF decoder uses:
    /// grey inverted for MinIsWhite, extra samples dropped, unassociated alpha premultiplied).
    private static func pixels(fromSamples stored: [UInt8], level: PyramidTIFFLevel) throws -> [UInt8] {
        let samples = level.samplesPerPixel, width = level.tileWidth, pixelCount = level.tileWidth * level.tileHeight
        guard stored.count >= pixelCount * samples else {
            throw ImageCacheError(.corruptData, "a tile of level \(level.index) has \(stored.count) of \(pixelCount * samples) bytes")
        }
        guard level.predictor == 1 || level.predictor == 2 else {
            throw ImageCacheError(.unsupportedFormat, "predictor \(level.predictor) is not read")
        }
        var values = stored
        if level.predictor == 2 {
            // Horizontal differencing: each sample is stored as the difference from the same
            // sample of the pixel to its left, row by row.
            for y in 0..<level.tileHeight {
                let start = y * width * samples
                for i in (start + samples)..<(start + width * samples) { values[i] = values[i] &+ values[i - samples] }
            }
        }
        var warnings: [String] = []
        let converter = try TIFFSampleConverter(plan: level.samplePlan, color: .untagged, capacity: width, warnings: &warnings)
        return values.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: pixelCount * 4) { out, initialized in
                for y in 0..<level.tileHeight {
                    converter.convert(source.baseAddress! + y * width * samples, count: width, into: out.baseAddress! + y * width * 4)
                }
                initialized = pixelCount * 4
            }
        }
    }
}
