import CTileSupport
import FICCore
import ImageCodec

/// Turns one 256 × 256 BGRA premultiplied tile into the bytes a pyramidal TIFF stores for it:
/// the one place where the package's pixel order becomes TIFF's (RGB, or RGBA with associated
/// alpha, which premultiplied samples already are).
enum PyramidTIFFTileEncoder {
    /// zlib's level for deflated tiles: its default, which costs about a third of level 9's time
    /// for nearly the same size on photographs.
    static let deflateLevel: Int32 = 6

    /// The stored bytes of `pixels` (exactly ``PyramidGeometry/tileBytes``: 256 rows of 1024
    /// bytes), of which the top-left `valid` pixels are the image's and the rest padding. JPEG
    /// tiles take `tables` in place of the quality's where given, and the Huffman tables `huffman`
    /// chooses (``TileHuffmanMemory``).
    static func encode(
        _ pixels: UnsafeRawBufferPointer, valid: (width: Int, height: Int), compression: PyramidTIFFCompression, hasAlpha: Bool,
        tables: JPEGQuantization? = nil, huffman: JPEGHuffmanCoding = .optimized
    ) throws -> [UInt8] {
        guard pixels.count == PyramidGeometry.tileBytes, let base = pixels.baseAddress else {
            throw ImageCacheError(
                .invalidArgument, "a tile is \(PyramidGeometry.tileBytes) bytes (256 × 256 BGRA), not \(pixels.count)")
        }
        switch compression {
        case .jpeg(let quality, let chromaQuality):
            // The encoder reads BGRX rows; an opaque tile's alpha (255, or 0 in padding) is ignored.
            func jpeg(_ base: UnsafeRawPointer) throws -> [UInt8] {
                try JPEGEncoder.encode(
                    pixels: base, width: PyramidGeometry.tileSide, height: PyramidGeometry.tileSide,
                    bytesPerRow: PyramidGeometry.tileRowStride, format: .bgrx32, quality: quality, chromaQuality: chromaQuality,
                    tables: tables,
                    huffman: huffman)
            }
            guard valid.width < PyramidGeometry.tileSide || valid.height < PyramidGeometry.tileSide else { return try jpeg(base) }
            return try edgeExtended(pixels, valid: valid).withUnsafeBytes { try jpeg($0.baseAddress!) }
        case .none:
            return samples(pixels, hasAlpha: hasAlpha)
        case .deflate:
            return try deflate(samples(pixels, hasAlpha: hasAlpha))
        }
    }

    /// The tile with its padding filled by repeating the last valid column and row. JPEG averages
    /// chroma over 2 × 2 pixels and codes 8 × 8 blocks: black padding would bleed into the edge
    /// pixels' colours (a 1 × 1 image came back at 35 dB) and cost bits for an edge nobody sees.
    static func edgeExtended(_ pixels: UnsafeRawBufferPointer, valid: (width: Int, height: Int)) -> [UInt8] {
        let side = PyramidGeometry.tileSide, stride = PyramidGeometry.tileRowStride
        var tile = Array(pixels)
        let width = max(1, min(side, valid.width)), height = max(1, min(side, valid.height))
        // In place, through one pointer: a row copied from a slice of the array itself would
        // copy the whole array first (copy on write), once per row.
        tile.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            for y in 0..<height where width < side {
                let last = base + y * stride + (width - 1) * 4
                for x in width..<side { (base + y * stride + x * 4).copyMemory(from: last, byteCount: 4) }
            }
            for y in height..<side { (base + y * stride).copyMemory(from: base + (height - 1) * stride, byteCount: stride) }
        }
        return tile
    }

    /// The tile's samples in TIFF's order: R, G, B (and A) per pixel.
    static func samples(_ pixels: UnsafeRawBufferPointer, hasAlpha: Bool) -> [UInt8] {
        let count = PyramidGeometry.tileSide * PyramidGeometry.tileSide
        let channels = hasAlpha ? 4 : 3
        return [UInt8](unsafeUninitializedCapacity: count * channels) { out, initialized in
            var o = 0
            for p in 0..<count {
                let i = p * 4
                out[o] = pixels[i + 2]
                out[o + 1] = pixels[i + 1]
                out[o + 2] = pixels[i]
                if hasAlpha { out[o + 3] = pixels[i + 3] }
                o += channels
            }
            initialized = count * channels
        }
    }

    /// `bytes` as one zlib stream.
    static func deflate(_ bytes: [UInt8]) throws -> [UInt8] {
        let capacity = fic_tile_deflate_bound(bytes.count)
        var failed = false
        let result = [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
            var produced = capacity
            let rc = bytes.withUnsafeBufferPointer { source in
                fic_tile_deflate(source.baseAddress, source.count, out.baseAddress, &produced, deflateLevel)
            }
            failed = rc != 0
            initialized = failed ? 0 : produced
        }
        if failed { throw ImageCacheError(.overMemoryBudget, "zlib could not deflate a tile: out of memory") }
        return result
    }
}
