import CCairo
import Foundation

extension ImageCanvas {
    /// Draws `image` into `rect` (in points), fitted by `contentMode`.
    ///
    /// The image's pixels are wrapped by a cairo surface without copying and only read. When the
    /// image's EXIF orientation has not been applied to its pixels, it is applied here, so the
    /// image is drawn upright. Scaling uses cairo's `GOOD` filter, which averages all covered
    /// source pixels when shrinking (no aliasing), with edges padded so they do not fade out.
    /// ``ContentMode/aspectFill`` crops the overflow equally on both sides;
    /// ``ContentMode/aspectFit`` leaves the letterbox bars untouched. Images in a format cairo
    /// cannot read (`PixelFormat.gray8`) are not drawn, and ``checkStatus()`` reports it.
    public func draw(_ image: DecodedImage, in rect: CGRect, contentMode: ContentMode = .aspectFill) {
        guard !rect.isNull, !rect.isInfinite else { return }
        let rect = rect.standardized
        guard rect.width > 0, rect.height > 0 else { return }
        let source: CairoImageSurface
        do {
            source = try CairoImageSurface(
                pixels: image.baseAddress, width: image.width, height: image.height,
                bytesPerRow: image.bytesPerRow, format: image.pixelFormat)
        } catch {
            record(error)
            return
        }
        let orientation = image.isOrientationApplied ? .up : image.source.orientation
        let storedWidth = CGFloat(image.width), storedHeight = CGFloat(image.height)
        let displayed =
            orientation.swapsDimensions
            ? CGSize(width: storedHeight, height: storedWidth)
            : CGSize(width: storedWidth, height: storedHeight)
        let frame = contentMode.frame(forContentOfSize: displayed, in: rect)
        let visible = frame.intersection(rect)
        guard !visible.isNull, visible.width > 0, visible.height > 0 else { return }
        var orient = Self.matrix(for: orientation, storedWidth: Double(storedWidth), storedHeight: Double(storedHeight))
        withExtendedLifetime(image) {
            withExtendedLifetime(source) {
                drawingOperation { context in
                    cairo_rectangle(
                        context, Double(visible.minX), Double(visible.minY),
                        Double(visible.width), Double(visible.height))
                    cairo_clip(context)
                    // User space becomes displayed-image pixels, then stored-image pixels.
                    cairo_translate(context, Double(frame.minX), Double(frame.minY))
                    cairo_scale(context, Double(frame.width / displayed.width), Double(frame.height / displayed.height))
                    cairo_transform(context, &orient)
                    cairo_set_source_surface(context, source.surface, 0, 0)
                    let pattern = cairo_get_source(context)
                    cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
                    cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
                    cairo_paint(context)
                }
            }
        }
    }

    /// The transform from stored pixel coordinates to upright (displayed) pixel coordinates for an
    /// image stored `storedWidth × storedHeight` with EXIF `orientation`.
    static func matrix(for orientation: ImageOrientation, storedWidth w: Double, storedHeight h: Double)
        -> cairo_matrix_t
    {
        // cairo_matrix_t maps (x, y) to (xx·x + xy·y + x0, yx·x + yy·y + y0).
        var matrix = cairo_matrix_t()
        switch orientation {
        case .up: cairo_matrix_init(&matrix, 1, 0, 0, 1, 0, 0)
        case .upMirrored: cairo_matrix_init(&matrix, -1, 0, 0, 1, w, 0)
        case .down: cairo_matrix_init(&matrix, -1, 0, 0, -1, w, h)
        case .downMirrored: cairo_matrix_init(&matrix, 1, 0, 0, -1, 0, h)
        case .leftMirrored: cairo_matrix_init(&matrix, 0, 1, 1, 0, 0, 0)
        case .right: cairo_matrix_init(&matrix, 0, 1, -1, 0, h, 0)
        case .rightMirrored: cairo_matrix_init(&matrix, 0, -1, -1, 0, h, w)
        case .left: cairo_matrix_init(&matrix, 0, -1, 1, 0, 0, w)
        }
        return matrix
    }
}
