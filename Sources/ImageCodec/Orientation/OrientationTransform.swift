/// Applies an EXIF orientation to a 32-bit bitmap, producing an upright copy.
package enum OrientationTransform {
    /// Where the stored pixel for display position `(x, y)` lives, for a stored bitmap of
    /// `width × height`.
    static func storedPosition(
        ofDisplay x: Int, _ y: Int, orientation: ImageOrientation, width: Int, height: Int
    ) -> (x: Int, y: Int) {
        switch orientation {
        case .up: return (x, y)
        case .upMirrored: return (width - 1 - x, y)
        case .down: return (width - 1 - x, height - 1 - y)
        case .downMirrored: return (x, height - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, height - 1 - x)
        case .rightMirrored: return (width - 1 - y, height - 1 - x)
        case .left: return (width - 1 - y, x)
        }
    }

    /// Copies `width × height` 32-bit pixels in stored orientation (rows `bytesPerRow` apart) to
    /// `destination`, upright: the displayed bitmap, `height × width` when `orientation` swaps the
    /// sides, rows `destinationBytesPerRow` apart. The regions must not overlap.
    package static func copy(
        _ source: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, orientation: ImageOrientation,
        into destination: UnsafeMutableRawPointer, bytesPerRow destinationBytesPerRow: Int
    ) {
        // Walk the stored pixels in memory order; each stored pixel (sx, sy) lands at display
        // position origin + sx * stepX + sy * stepY (in pixels of the result).
        let displayRow = destinationBytesPerRow / 4
        let origin: Int, stepX: Int, stepY: Int
        switch orientation {
        case .up: (origin, stepX, stepY) = (0, 1, displayRow)
        case .upMirrored: (origin, stepX, stepY) = (width - 1, -1, displayRow)
        case .down: (origin, stepX, stepY) = ((height - 1) * displayRow + width - 1, -1, -displayRow)
        case .downMirrored: (origin, stepX, stepY) = ((height - 1) * displayRow, 1, -displayRow)
        case .leftMirrored: (origin, stepX, stepY) = (0, displayRow, 1)
        case .right: (origin, stepX, stepY) = (height - 1, displayRow, -1)
        case .rightMirrored: (origin, stepX, stepY) = ((width - 1) * displayRow + height - 1, -displayRow, -1)
        case .left: (origin, stepX, stepY) = ((width - 1) * displayRow, -displayRow, 1)
        }
        let pixels = destination.assumingMemoryBound(to: UInt32.self)
        for sy in 0..<height {
            let sourceRow = (source + sy * bytesPerRow).assumingMemoryBound(to: UInt32.self)
            var target = origin + sy * stepY
            for sx in 0..<width {
                pixels[target] = sourceRow[sx]
                target += stepX
            }
        }
    }

    /// An upright copy of `image` (whose pixels are in stored orientation), or `image` itself when
    /// `orientation` is ``ImageOrientation/up``.
    static func apply(_ orientation: ImageOrientation, to image: DecodedImage) throws -> DecodedImage {
        let swaps = orientation.swapsDimensions
        let result = try DecodedImage(
            allocating: swaps ? image.height : image.width,
            height: swaps ? image.width : image.height,
            pixelFormat: image.pixelFormat, source: image.source,
            isOrientationApplied: true, scaleDenominator: image.scaleDenominator, zeroFilled: false  // every pixel is written below
        )
        copy(
            image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow, orientation: orientation,
            into: result.baseAddress, bytesPerRow: result.bytesPerRow)
        result.addWarnings(image.warnings)
        return result
    }
}
