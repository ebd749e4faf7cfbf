import CCairo
import FastImageCache
import Foundation
import Testing

@Suite("CairoImageSurface and the cairo escape hatch")
struct CairoImageSurfaceTests {
    @Test func wrapsMemoryWithoutCopying() throws {
        let buffer = CanvasPixelBuffer(width: 4, height: 2, format: .bgra32Premultiplied, bytesPerRow: 64)
        let surface = try CairoImageSurface(
            pixels: buffer.pixels, width: 4, height: 2, bytesPerRow: 64,
            format: .bgra32Premultiplied)
        #expect(cairo_surface_status(surface.surface) == CAIRO_STATUS_SUCCESS)
        #expect(cairo_image_surface_get_data(surface.surface) == buffer.pixels.assumingMemoryBound(to: UInt8.self))
        #expect(cairo_image_surface_get_stride(surface.surface) == 64)
        #expect(cairo_image_surface_get_format(surface.surface) == CAIRO_FORMAT_ARGB32)
        #expect(surface.width == 4 && surface.height == 2 && surface.bytesPerRow == 64)
        #expect(surface.format == .bgra32Premultiplied)

        buffer.pixels.storeBytes(of: UInt32(0xFF00_FF00).littleEndian, as: UInt32.self)
        surface.markDirty()
        let context = try #require(cairo_create(surface.surface))
        cairo_rectangle(context, 1, 0, 1, 1)
        cairo_set_source_rgb(context, 0, 0, 1)
        cairo_fill(context)
        cairo_destroy(context)
        surface.flush()
        #expect(buffer.bytes(0, 0) == [0, 0xFF, 0, 0xFF])
        #expect(buffer.bytes(1, 0) == CanvasBGRA.blue)
    }

    @Test func formatsMapToCairoFormats() throws {
        let buffer = CanvasPixelBuffer(width: 4, height: 2, format: .bgra32Premultiplied)
        let rgb24 = try CairoImageSurface(pixels: buffer.pixels, width: 4, height: 2, bytesPerRow: 16, format: .bgrx32)
        #expect(cairo_image_surface_get_format(rgb24.surface) == CAIRO_FORMAT_RGB24)
        let rgb16 = try CairoImageSurface(pixels: buffer.pixels, width: 4, height: 2, bytesPerRow: 8, format: .rgb565)
        #expect(cairo_image_surface_get_format(rgb16.surface) == CAIRO_FORMAT_RGB16_565)
    }

    @Test func rejectsGray8() {
        let buffer = CanvasPixelBuffer(width: 4, height: 4, format: .gray8)
        let error = #expect(throws: ImageCacheError.self) {
            try CairoImageSurface(pixels: buffer.pixels, width: 4, height: 4, bytesPerRow: 4, format: .gray8)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("gray8") == true)
    }

    @Test(arguments: [
        (PixelFormat.bgra32Premultiplied, 12), (.bgra32Premultiplied, 18), (.bgrx32, 0), (.rgb565, 6), (.rgb565, 10)
    ])
    func rejectsBadStrides(format: PixelFormat, bytesPerRow: Int) {
        let buffer = CanvasPixelBuffer(width: 4, height: 4, format: .bgra32Premultiplied, bytesPerRow: 64)
        let error = #expect(throws: ImageCacheError.self) {
            try CairoImageSurface(pixels: buffer.pixels, width: 4, height: 4, bytesPerRow: bytesPerRow, format: format)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("bytesPerRow") == true)
    }

    @Test func canvasRejectsBadArguments() {
        let buffer = CanvasPixelBuffer(width: 8, height: 8, format: .bgra32Premultiplied, bytesPerRow: 64)
        /// The refusal's subject: a word its message must contain, checked with the code.
        func kind(_ body: () throws -> ImageCanvas) -> String? {
            do { _ = try body() } catch let error as ImageCacheError {
                guard error.code == .invalidArgument else { return "code \(error.code)" }
                return ["bytesPerRow": "stride", "size": "size", "scale": "scale", "must start at": "alignment"]
                    .first { error.message.contains($0.key) }?.value ?? error.message
            } catch {}
            return nil
        }
        #expect(
            kind {
                try ImageCanvas(
                    pixels: buffer.pixels, pixelWidth: 8, pixelHeight: 8, bytesPerRow: 16,
                    pixelFormat: .bgra32Premultiplied, scale: 1)
            } == "stride")
        #expect(
            kind {
                try ImageCanvas(
                    pixels: buffer.pixels, pixelWidth: 8, pixelHeight: 8, bytesPerRow: 6,
                    pixelFormat: .gray8, scale: 1)
            } == "stride")
        #expect(
            kind {
                try ImageCanvas(
                    pixels: buffer.pixels, pixelWidth: 0, pixelHeight: 8, bytesPerRow: 64,
                    pixelFormat: .bgrx32, scale: 1)
            } == "size")
        #expect(
            kind {
                try ImageCanvas(
                    pixels: buffer.pixels, pixelWidth: 8, pixelHeight: 8, bytesPerRow: 64,
                    pixelFormat: .bgrx32, scale: 0)
            } == "scale")
        #expect(
            kind {
                try ImageCanvas(
                    pixels: buffer.pixels + 2, pixelWidth: 8, pixelHeight: 7, bytesPerRow: 64,
                    pixelFormat: .bgrx32, scale: 1)
            } == "alignment")
        #expect(
            kind {
                try ImageCanvas(
                    pixels: buffer.pixels + 1, pixelWidth: 8, pixelHeight: 7, bytesPerRow: 64,
                    pixelFormat: .gray8, scale: 1)
            } == nil, "gray8 has no alignment requirement")
    }

    @Test func errorDescriptionIsItsMessage() {
        let error = ImageCacheError(.invalidArgument, "too big")
        #expect(error.description == "too big")
        #expect(String(describing: error) == "too big")
    }

    @Test func cairoContextIsScaledToPointsAndRestored() throws {
        let buffer = CanvasPixelBuffer(width: 20, height: 20, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas(scale: 2)
        canvas.clear()
        let xx = canvas.withCairoContext { context -> Double in
            var matrix = cairo_matrix_t()
            cairo_get_matrix(context, &matrix)
            cairo_rectangle(context, 0, 0, 5, 5)
            cairo_clip(context)
            cairo_set_source_rgb(context, 1, 0, 0)
            cairo_paint(context)
            return matrix.xx
        }
        #expect(xx == 2)
        canvas.fill(CGRect(x: 9, y: 9, width: 1, height: 1), color: .opaqueBlue)
        canvas.finish()
        #expect(buffer.bytes(9, 9) == CanvasBGRA.red)
        #expect(buffer.bytes(10, 10) == CanvasBGRA.transparent)
        #expect(buffer.bytes(19, 19) == CanvasBGRA.blue, "the clip set inside was restored")
        try canvas.checkStatus()
    }

    @Test func cairoContextDrawingReachesGray8() throws {
        let buffer = CanvasPixelBuffer(width: 4, height: 4, format: .gray8, fill: 0)
        let canvas = try buffer.makeCanvas()
        canvas.withCairoContext { context in
            cairo_set_source_rgb(context, 1, 1, 1)
            cairo_paint(context)
        }
        canvas.finish()
        #expect(buffer.allPixels { $0 == [255] })
    }

    @Test func cairoContextRethrows() throws {
        struct Failure: Error {}
        let buffer = CanvasPixelBuffer(width: 4, height: 4, format: .bgrx32)
        let canvas = try buffer.makeCanvas()
        #expect(throws: Failure.self) { try canvas.withCairoContext { _ in throw Failure() } }
        #expect(throws: Failure.self) { try canvas.withSavedState { throw Failure() } }
        canvas.clear(to: .white)
        canvas.finish()
        #expect(Array(buffer.bytes(0, 0).prefix(3)) == [255, 255, 255], "the context still works after a throw")
    }
}
