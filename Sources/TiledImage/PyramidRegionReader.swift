import FICCore
import ImageCodec

/// A bitmap made from a pyramid: 32-bit pixels in the pyramid's layout (BGRA premultiplied),
/// rows `width × 4` bytes apart.
public struct RegionBitmap: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The pixels, row after row.
    public var pixels: [UInt8]
    /// Bytes from one row to the next.
    public var bytesPerRow: Int { width * 4 }

    /// A `width × height` bitmap of `pixels` (`width × height × 4` bytes).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "a bitmap's pixels are width × height × 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// Reads any rectangle of a pyramid at any size up to its own, from the coarsest level that still
/// has at least the pixels asked for: a 4096-pixel view of an 18000² image reads the 4500² level,
/// never the full one. Levels below the pyramid's smallest are made once, in memory, as the
/// static export makes them, so every size down to 1 × 1 has a level.
///
/// Memory is one band of tiles across the region at the chosen level and the output bitmap.
/// Thread-safe; each call reads with its own buffer.
public final class PyramidRegionReader: Sendable {
    /// The pyramid read.
    public let pyramid: TilePyramid
    /// Its levels, full resolution first, down to 1 × 1.
    package let levels: StaticLevels

    /// Prepares reading `pyramid` (assembles its smallest level and halves it down to 1 × 1).
    /// With `tiles` (the pyramid's ``TilePyramid/tileTable(directory:maximumTiles:logger:)``), the
    /// tiles it holds are read from it in place, zero-copy, and those it lacks are decoded once
    /// and stored in it: a region read again, here or by a viewer of the same table, decodes nothing.
    public init(_ pyramid: TilePyramid, tiles: TileTable? = nil) throws {
        self.pyramid = pyramid
        levels = try StaticLevels(pyramid, tiles: tiles)
    }

    /// Levels, full resolution first, the last 1 × 1.
    public var levelCount: Int { levels.levels.count }

    /// The size of `level` (0 is full resolution; each next one halved, odd sizes rounded up).
    public func size(ofLevel level: Int) -> (width: Int, height: Int) { levels.size(of: level) }

    /// The rectangle (`x`, `y`, `width`, `height`, in full-resolution pixels, inside the image) at
    /// `outputWidth × outputHeight` (each at most the rectangle's side), each output pixel the
    /// average of the area it covers.
    ///
    /// - Throws: `.invalidArgument` for a rectangle outside the image or a size larger than it or
    ///   empty; the pyramid's read errors.
    public func read(x: Int, y: Int, width: Int, height: Int, outputWidth: Int, outputHeight: Int) throws -> RegionBitmap {
        let full = size(ofLevel: 0)
        guard x >= 0, y >= 0, width > 0, height > 0, x <= full.width - width, y <= full.height - height else {
            throw ImageCacheError(
                .invalidArgument, "the region \(x),\(y),\(width),\(height) is not inside the \(full.width)×\(full.height) image")
        }
        guard outputWidth > 0, outputHeight > 0, outputWidth <= width, outputHeight <= height else {
            throw ImageCacheError(
                .invalidArgument,
                "a \(width)×\(height) region cannot be read at \(outputWidth)×\(outputHeight): sizes are 1 to the region's own")
        }
        // The coarsest level whose part of the region still has the output's pixels.
        var level = levelCount - 1
        var area = Self.area(x: x, y: y, width: width, height: height, level: level, size: size(ofLevel: level))
        while level > 0 && (area.x1 - area.x0 < outputWidth || area.y1 - area.y0 < outputHeight) {
            level -= 1
            area = Self.area(x: x, y: y, width: width, height: height, level: level, size: size(ofLevel: level))
        }
        return try read(
            level: level, x0: area.x0, y0: area.y0, x1: area.x1, y1: area.y1, outputWidth: outputWidth, outputHeight: outputHeight)
    }

    /// The pixels of `level` covering the full-resolution rectangle: its edges scaled down, the far
    /// ones rounded up, clipped by the level.
    private static func area(x: Int, y: Int, width: Int, height: Int, level: Int, size: (width: Int, height: Int)) -> (
        x0: Int, y0: Int, x1: Int, y1: Int
    ) {
        let scale = 1 << level
        return (x / scale, y / scale, min(size.width, (x + width + scale - 1) / scale), min(size.height, (y + height + scale - 1) / scale))
    }

    /// Reads `x0..<x1 × y0..<y1` of `level`, resampling each row into the output as it comes (or
    /// copying it, at the level's own size).
    private func read(level: Int, x0: Int, y0: Int, x1: Int, y1: Int, outputWidth: Int, outputHeight: Int) throws -> RegionBitmap {
        let sourceWidth = x1 - x0, sourceHeight = y1 - y0
        var output = RegionBitmap(
            width: outputWidth, height: outputHeight, pixels: [UInt8](repeating: 0, count: outputWidth * outputHeight * 4))
        try output.pixels.withUnsafeMutableBytes { out in
            let pixels = out.baseAddress!
            if sourceWidth != outputWidth || sourceHeight != outputHeight {
                var resampler = AreaResampler(
                    sourceWidth: sourceWidth, sourceHeight: sourceHeight, outputWidth: outputWidth, outputHeight: outputHeight)
                try forEachRow(level: level, x0: x0, y0: y0, x1: x1, y1: y1) { row in
                    resampler.add(row.assumingMemoryBound(to: UInt32.self)) {
                        (pixels + $0 * outputWidth * 4).assumingMemoryBound(to: UInt32.self)
                    }
                }
            } else {
                var next = 0
                try forEachRow(level: level, x0: x0, y0: y0, x1: x1, y1: y1) { row in
                    (pixels + next * outputWidth * 4).copyMemory(from: row, byteCount: sourceWidth * 4)
                    next += 1
                }
            }
        }
        return output
    }

    /// Calls `body` with each row of `x0..<x1 × y0..<y1` of `level`, top to bottom, assembled a band
    /// of tile rows at a time (one `pread` per tile, or a tile table's slot).
    private func forEachRow(level: Int, x0: Int, y0: Int, x1: Int, y1: Int, _ body: (UnsafeRawPointer) -> Void) throws {
        let side = PyramidGeometry.tileSide
        let width = x1 - x0
        var band = [UInt8](repeating: 0, count: width * side * 4)
        let buffer = try TileBuffer()
        for tileRow in (y0 / side)...((y1 - 1) / side) {
            let top = max(y0, tileRow * side), bottom = min(y1, (tileRow + 1) * side)
            try band.withUnsafeMutableBytes { band in
                for tileColumn in (x0 / side)...((x1 - 1) / side) {
                    let left = max(x0, tileColumn * side), right = min(x1, (tileColumn + 1) * side)
                    try levels.withTile(level: level, column: tileColumn, row: tileRow, buffer: buffer) { tile, bytesPerRow, _, _ in
                        for y in top..<bottom {
                            let from = tile + (y - tileRow * side) * bytesPerRow + (left - tileColumn * side) * 4
                            band.baseAddress!.advanced(by: ((y - top) * width + left - x0) * 4).copyMemory(
                                from: from, byteCount: (right - left) * 4)
                        }
                    }
                }
                for y in 0..<(bottom - top) { body(UnsafeRawPointer(band.baseAddress! + y * width * 4)) }
            }
        }
    }
}
