import FICCore
import ImageCodec
import SystemPackage

/// Turns the stored-orientation tiles of a rotated or mirrored image into upright rows.
///
/// Rows of such an image do not arrive in display order (a rotated image's first stored row is a
/// display column), so its full-resolution tiles are first written as stored; then each band of
/// 256 display rows is gathered from the stored tiles it covers (each read with one `pread`) and
/// fed to the pyramid writer. Memory: one band and one tile.
enum OrientationReplay {
    static func run(
        stored file: FileDescriptor, storedLevel: TileLevel, orientation: ImageOrientation, into writer: PyramidWriter
    ) throws {
        let sw = storedLevel.width, sh = storedLevel.height
        let swaps = orientation.swapsDimensions
        let dw = swaps ? sh : sw, dh = swaps ? sw : sh
        let band = try PageBuffer(count: dw * 4 * 256)
        let tile = try PageBuffer(count: PyramidGeometry.tileBytes)
        // display = (ax·sx + bx·sy + cx, ay·sx + by·sy + cy)
        let (ax, bx, cx, ay, by, cy): (Int, Int, Int, Int, Int, Int)
        switch orientation {
        case .up: (ax, bx, cx, ay, by, cy) = (1, 0, 0, 0, 1, 0)
        case .upMirrored: (ax, bx, cx, ay, by, cy) = (-1, 0, sw - 1, 0, 1, 0)
        case .down: (ax, bx, cx, ay, by, cy) = (-1, 0, sw - 1, 0, -1, sh - 1)
        case .downMirrored: (ax, bx, cx, ay, by, cy) = (1, 0, 0, 0, -1, sh - 1)
        case .leftMirrored: (ax, bx, cx, ay, by, cy) = (0, 1, 0, 1, 0, 0)
        case .right: (ax, bx, cx, ay, by, cy) = (0, -1, sh - 1, 1, 0, 0)
        case .rightMirrored: (ax, bx, cx, ay, by, cy) = (0, -1, sh - 1, -1, 0, sw - 1)
        case .left: (ax, bx, cx, ay, by, cy) = (0, 1, 0, -1, 0, sw - 1)
        }
        let out = band.base.assumingMemoryBound(to: UInt32.self)
        var y0 = 0
        while y0 < dh {
            let y1 = min(dh, y0 + 256)
            // The stored range that lands in display rows y0..<y1: rows of stored pixels, or columns when swapped.
            var xRange = 0..<sw, yRange = 0..<sh
            if swaps {
                xRange = ay > 0 ? y0..<y1 : (sw - y1)..<(sw - y0)
            } else {
                yRange = by > 0 ? y0..<y1 : (sh - y1)..<(sh - y0)
            }
            for tileRow in (yRange.lowerBound >> 8)...((yRange.upperBound - 1) >> 8) {
                for tileColumn in (xRange.lowerBound >> 8)...((xRange.upperBound - 1) >> 8) {
                    let offset = (tileRow * storedLevel.columns + tileColumn) * PyramidGeometry.tileBytes
                    let n = try file.readAll(
                        into: UnsafeMutableRawBufferPointer(start: tile.base, count: PyramidGeometry.tileBytes), at: offset, path: nil)
                    guard n == PyramidGeometry.tileBytes else {
                        throw ImageCacheError(.io, "the stored tiles of the image end early")
                    }
                    let pixels = tile.base.assumingMemoryBound(to: UInt32.self)
                    let sx0 = max(tileColumn * 256, xRange.lowerBound), sx1 = min(tileColumn * 256 + 256, xRange.upperBound)
                    let sy0 = max(tileRow * 256, yRange.lowerBound), sy1 = min(tileRow * 256 + 256, yRange.upperBound)
                    for sy in sy0..<sy1 {
                        let source = pixels + (sy - tileRow * 256) * 256
                        let first = tileColumn * 256
                        var dx = ax * sx0 + bx * sy + cx
                        var dy = ay * sx0 + by * sy + cy - y0
                        for sx in sx0..<sx1 {
                            out[dy * dw + dx] = source[sx - first]
                            dx += ax
                            dy += ay
                        }
                    }
                }
            }
            try writer.append(rows: band.base, count: y1 - y0, bytesPerRow: dw * 4)
            y0 = y1
        }
    }
}
