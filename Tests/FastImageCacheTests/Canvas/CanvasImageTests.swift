import FastImageCache
import Foundation
import Testing

@Suite("ImageCanvas drawing images")
struct CanvasImageTests {
    /// 20×10, left half red, right half blue.
    private func redBlueImage() -> DecodedImage {
        makeCanvasTestImage(width: 20, height: 10) { x, _ in x < 10 ? CanvasBGRA.red : CanvasBGRA.blue }
    }

    private func canvas40() throws -> (CanvasPixelBuffer, ImageCanvas) {
        let buffer = CanvasPixelBuffer(width: 40, height: 40, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        return (buffer, canvas)
    }

    @Test func aspectFillCropsCentred() throws {
        let (buffer, canvas) = try canvas40()
        // Scaled ×2 to 40×20 around the rect's centre: x 0…40 cropped to 10…30.
        canvas.draw(redBlueImage(), in: CGRect(x: 10, y: 10, width: 20, height: 20), contentMode: .aspectFill)
        canvas.finish()
        #expect(canvasBytesClose(buffer.bytes(11, 11), CanvasBGRA.red))
        #expect(canvasBytesClose(buffer.bytes(17, 28), CanvasBGRA.red))
        #expect(canvasBytesClose(buffer.bytes(23, 11), CanvasBGRA.blue))
        #expect(canvasBytesClose(buffer.bytes(29, 29), CanvasBGRA.blue))
        for (x, y) in [(9, 20), (30, 20), (20, 9), (20, 30), (5, 20), (35, 20)] {
            #expect(buffer.bytes(x, y) == CanvasBGRA.transparent, "outside the rect (\(x), \(y))")
        }
        for y in 10..<30 { for x in 10..<30 { #expect(buffer.alpha(x, y) == 255) } }
    }

    @Test func aspectFitLetterboxesCentred() throws {
        let (buffer, canvas) = try canvas40()
        // Unscaled 20×10, centred: y 15…25.
        canvas.draw(redBlueImage(), in: CGRect(x: 10, y: 10, width: 20, height: 20), contentMode: .aspectFit)
        canvas.finish()
        #expect(canvasBytesClose(buffer.bytes(10, 15), CanvasBGRA.red))
        #expect(canvasBytesClose(buffer.bytes(17, 24), CanvasBGRA.red))
        #expect(canvasBytesClose(buffer.bytes(22, 15), CanvasBGRA.blue))
        #expect(canvasBytesClose(buffer.bytes(29, 24), CanvasBGRA.blue))
        for x in 10..<30 {
            #expect(buffer.bytes(x, 14) == CanvasBGRA.transparent, "top bar")
            #expect(buffer.bytes(x, 10) == CanvasBGRA.transparent, "top bar")
            #expect(buffer.bytes(x, 25) == CanvasBGRA.transparent, "bottom bar")
            #expect(buffer.bytes(x, 29) == CanvasBGRA.transparent, "bottom bar")
        }
    }

    @Test func stretchFillsTheRect() throws {
        let (buffer, canvas) = try canvas40()
        canvas.draw(redBlueImage(), in: CGRect(x: 10, y: 10, width: 20, height: 20), contentMode: .stretch)
        canvas.finish()
        #expect(canvasBytesClose(buffer.bytes(10, 10), CanvasBGRA.red))
        #expect(canvasBytesClose(buffer.bytes(17, 29), CanvasBGRA.red))
        #expect(canvasBytesClose(buffer.bytes(22, 10), CanvasBGRA.blue))
        #expect(canvasBytesClose(buffer.bytes(29, 29), CanvasBGRA.blue))
        #expect(buffer.bytes(9, 20) == CanvasBGRA.transparent)
        #expect(buffer.bytes(30, 20) == CanvasBGRA.transparent)
        #expect(buffer.bytes(20, 9) == CanvasBGRA.transparent)
    }

    @Test func aspectFillOfAQuarterRedImageShowsNoRed() throws {
        // Left quarter red: scaled ×4 into a square, the red quarter falls entirely in the crop.
        let image = makeCanvasTestImage(width: 20, height: 10) { x, _ in x < 5 ? CanvasBGRA.red : CanvasBGRA.blue }
        let (buffer, canvas) = try canvas40()
        canvas.draw(image, in: CGRect(x: 0, y: 0, width: 40, height: 40))
        canvas.finish()
        // Only the interpolation at the crop edge may tint the first columns.
        for y in 0..<40 {
            for x in 0..<3 { #expect(buffer.bytes(x, y)[2] < 128, "(\(x), \(y)) is mostly blue") }
            for x in 3..<40 { #expect(canvasBytesClose(buffer.bytes(x, y), CanvasBGRA.blue), "(\(x), \(y)) is blue") }
        }
    }

    /// 8× is the plain case; at 9× every output pixel centre falls on a source pixel centre, where
    /// point sampling (even bilinear) would return pure black or white.
    @Test(arguments: [64, 72])
    func downscalingAveragesACheckerboard(sourceSize: Int) throws {
        let checker = makeCanvasTestImage(width: sourceSize, height: sourceSize) { x, y in
            (x + y) % 2 == 0 ? CanvasBGRA.black : CanvasBGRA.white
        }
        let buffer = CanvasPixelBuffer(width: 8, height: 8, format: .bgrx32)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.draw(checker, in: CGRect(x: 0, y: 0, width: 8, height: 8), contentMode: .stretch)
        canvas.finish()
        for y in 0..<8 {
            for x in 0..<8 {
                for value in buffer.bytes(x, y).prefix(3) {
                    #expect(abs(Int(value) - 128) <= 20, "pixel (\(x), \(y)) = \(value)")
                }
            }
        }
    }

    @Test func scaleTwoImageCoversTwiceThePixels() throws {
        let buffer = CanvasPixelBuffer(width: 20, height: 20, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas(scale: 2)
        canvas.clear()
        let image = makeCanvasTestImage(width: 4, height: 4) { _, _ in CanvasBGRA.red }
        canvas.draw(image, in: CGRect(x: 0, y: 0, width: 5, height: 5))
        canvas.finish()
        #expect(canvasBytesClose(buffer.bytes(9, 9), CanvasBGRA.red))
        #expect(buffer.bytes(10, 9) == CanvasBGRA.transparent)
        #expect(buffer.bytes(9, 10) == CanvasBGRA.transparent)
    }

    @Test func translucentImageBlendsOverExistingPixels() throws {
        let buffer = CanvasPixelBuffer(width: 4, height: 4, format: .bgrx32)
        let canvas = try buffer.makeCanvas()
        canvas.clear(to: .white)
        // Premultiplied 50% black.
        let image = makeCanvasTestImage(width: 2, height: 2, format: .bgra32Premultiplied) { _, _ in [0, 0, 0, 128] }
        canvas.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 4))
        canvas.finish()
        #expect(canvasBytesClose(Array(buffer.bytes(1, 1).prefix(3)), [127, 127, 127]))
    }

    @Test(arguments: [
        (ImageOrientation.right, false, "red above blue"),
        (ImageOrientation.left, false, "blue above red"),
        (ImageOrientation.up, false, "red left of blue"),
        (ImageOrientation.upMirrored, false, "blue left of red"),
        (ImageOrientation.right, true, "red left of blue")
    ])
    func unappliedOrientationIsApplied(orientation: ImageOrientation, applied: Bool, expected: String) throws {
        // Stored 20×10, left half red; drawn stretched into 40×40.
        let image = makeCanvasTestImage(width: 20, height: 10, orientation: orientation, orientationApplied: applied) { x, _ in
            x < 10 ? CanvasBGRA.red : CanvasBGRA.blue
        }
        let (buffer, canvas) = try canvas40()
        canvas.draw(image, in: CGRect(x: 0, y: 0, width: 40, height: 40), contentMode: .stretch)
        canvas.finish()
        let top = buffer.bytes(20, 3), bottom = buffer.bytes(20, 36)
        let left = buffer.bytes(3, 20), right = buffer.bytes(36, 20)
        switch expected {
        case "red above blue": #expect(canvasBytesClose(top, CanvasBGRA.red) && canvasBytesClose(bottom, CanvasBGRA.blue))
        case "blue above red": #expect(canvasBytesClose(top, CanvasBGRA.blue) && canvasBytesClose(bottom, CanvasBGRA.red))
        case "red left of blue": #expect(canvasBytesClose(left, CanvasBGRA.red) && canvasBytesClose(right, CanvasBGRA.blue))
        default: #expect(canvasBytesClose(left, CanvasBGRA.blue) && canvasBytesClose(right, CanvasBGRA.red))
        }
    }

    @Test func rotatedOrientationUsesDisplayedAspect() throws {
        // Stored 20×10 with orientation .right displays as 10×20: aspect-fit in 40×40 is 20 wide.
        let image = makeCanvasTestImage(width: 20, height: 10, orientation: .right, orientationApplied: false) { _, _ in
            CanvasBGRA.red
        }
        let (buffer, canvas) = try canvas40()
        canvas.draw(image, in: CGRect(x: 0, y: 0, width: 40, height: 40), contentMode: .aspectFit)
        canvas.finish()
        #expect(buffer.bytes(9, 20) == CanvasBGRA.transparent)
        #expect(canvasBytesClose(buffer.bytes(10, 0), CanvasBGRA.red))
        #expect(canvasBytesClose(buffer.bytes(29, 39), CanvasBGRA.red))
        #expect(buffer.bytes(30, 20) == CanvasBGRA.transparent)
    }

    @Test func gray8ImageIsReportedNotDrawn() throws {
        let image = DecodedImage(
            width: 4, height: 4, pixelFormat: .gray8,
            source: ImageInfo(format: .png, width: 4, height: 4, hasAlpha: false), isOrientationApplied: true)
        let (buffer, canvas) = try canvas40()
        try canvas.checkStatus()
        canvas.draw(image, in: CGRect(x: 0, y: 0, width: 40, height: 40))
        canvas.finish()
        #expect(buffer.bytes(20, 20) == CanvasBGRA.transparent)
        #expect(throws: ImageCacheError.self) { try canvas.checkStatus() }
    }

    @Test func drawingIntoGray8AndRGB565() throws {
        let gray = CanvasPixelBuffer(width: 40, height: 40, format: .gray8)
        let grayCanvas = try gray.makeCanvas()
        grayCanvas.clear()
        grayCanvas.draw(redBlueImage(), in: CGRect(x: 0, y: 0, width: 40, height: 40), contentMode: .stretch)
        grayCanvas.finish()
        #expect(abs(Int(gray.bytes(5, 5)[0]) - 77) <= 2)
        #expect(abs(Int(gray.bytes(35, 35)[0]) - 29) <= 2)

        let rgb = CanvasPixelBuffer(width: 40, height: 40, format: .rgb565)
        let rgbCanvas = try rgb.makeCanvas()
        rgbCanvas.draw(redBlueImage(), in: CGRect(x: 0, y: 0, width: 40, height: 40), contentMode: .stretch)
        rgbCanvas.finish()
        #expect(rgb.rgb565(5, 5) == 0xF800)
        #expect(rgb.rgb565(35, 35) == 0x001F)
    }
}
