#if Server
import TiledImage

/// The pixels of a IIIF request: its region at its size. The pyramid's reader only shrinks (each
/// output pixel the average of the area it covers), so a `^` size that enlarges the region on a
/// side is read at the region's own size on that side and then enlarged bilinearly. What is read
/// is never larger than the answer, so an enlarged answer's memory is bounded by the limits, as
/// every other answer's is.
enum RegionRendering {
    /// `request`'s region of `reader`'s image at `request.width × request.height`.
    static func bitmap(of request: IIIFImageRequest, from reader: PyramidRegionReader) throws -> RegionBitmap {
        let read = try reader.read(
            x: request.x, y: request.y, width: request.regionWidth, height: request.regionHeight,
            outputWidth: min(request.width, request.regionWidth), outputHeight: min(request.height, request.regionHeight))
        guard request.upscales else { return read }
        return enlarged(read, width: request.width, height: request.height)
    }

    /// `source` enlarged to `width × height` (each at least its own side): each output pixel
    /// interpolated between the four source pixels around its centre, with the pixels' centres
    /// aligned and the edges repeated. Premultiplied samples interpolate as they are stored.
    static func enlarged(_ source: RegionBitmap, width: Int, height: Int) -> RegionBitmap {
        precondition(width >= source.width && height >= source.height, "only enlarges")
        let columns = taps(from: source.width, to: width), rows = taps(from: source.height, to: height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        source.pixels.withUnsafeBufferPointer { from in
            pixels.withUnsafeMutableBufferPointer { to in
                for y in 0..<height {
                    let row = rows[y]
                    let top = row.first * source.bytesPerRow, bottom = row.second * source.bytesPerRow
                    let fy = row.weight, gy = 256 - fy
                    var out = y * width * 4
                    for column in columns {
                        let left = column.first * 4, right = column.second * 4
                        let fx = column.weight, gx = 256 - fx
                        for channel in 0..<4 {
                            let upper = Int(from[top + left + channel]) * gx + Int(from[top + right + channel]) * fx
                            let lower = Int(from[bottom + left + channel]) * gx + Int(from[bottom + right + channel]) * fx
                            to[out + channel] = UInt8(truncatingIfNeeded: (upper * gy + lower * fy + 32_768) >> 16)
                        }
                        out += 4
                    }
                }
            }
        }
        return RegionBitmap(width: width, height: height, pixels: pixels)
    }

    /// For each of `outputSide` pixels along a side of `sourceSide`: the source pixels either side
    /// of its centre, and the second one's weight out of 256.
    private static func taps(from sourceSide: Int, to outputSide: Int) -> [(first: Int, second: Int, weight: Int)] {
        let ratio = Double(sourceSide) / Double(outputSide)
        return (0..<outputSide).map { i in
            let position = min(max((Double(i) + 0.5) * ratio - 0.5, 0), Double(sourceSide - 1))
            let first = Int(position)
            return (first, min(first + 1, sourceSide - 1), Int(((position - Double(first)) * 256).rounded()))
        }
    }
}
#endif
