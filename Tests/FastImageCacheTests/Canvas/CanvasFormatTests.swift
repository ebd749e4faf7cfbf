import FastImageCache
import Foundation
import Testing

@Suite("ImageCanvas pixel formats")
struct CanvasFormatTests {
    @Test func bgraClearIsTransparentAndHalfTransparentFillIsPremultiplied() throws {
        let buffer = CanvasPixelBuffer(width: 8, height: 8, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.fill(CGRect(x: 2, y: 2, width: 4, height: 4), color: CanvasColor(red: 1, green: 0, blue: 0, alpha: 0.5))
        canvas.finish()
        #expect(buffer.bytes(2, 2) == [0x00, 0x00, 0x80, 0x80])
        #expect(buffer.bytes(5, 5) == [0x00, 0x00, 0x80, 0x80])
        #expect(buffer.bytes(1, 1) == CanvasBGRA.transparent)
        #expect(buffer.bytes(6, 6) == CanvasBGRA.transparent)
        #expect(buffer.bytes(7, 0) == CanvasBGRA.transparent)
    }

    @Test func bgraOpaqueFillAndClearToColor() throws {
        let buffer = CanvasPixelBuffer(width: 4, height: 4, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear(to: CanvasColor(red: 0, green: 0, blue: 1, alpha: 0.5))
        canvas.fill(CGRect(x: 0, y: 0, width: 2, height: 4), color: .white)
        canvas.finish()
        #expect(buffer.bytes(0, 0) == CanvasBGRA.white)
        #expect(buffer.bytes(3, 3) == [0x80, 0x00, 0x00, 0x80])
        try canvas.checkStatus()
    }

    @Test func bgrxClearIsBlackAndFillIsOpaque() throws {
        let buffer = CanvasPixelBuffer(width: 8, height: 8, format: .bgrx32)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.fill(CGRect(x: 2, y: 2, width: 4, height: 4), color: .opaqueGreen)
        canvas.fill(CGRect(x: 0, y: 7, width: 8, height: 1), color: CanvasColor(white: 1, alpha: 0.5))
        canvas.finish()
        #expect(Array(buffer.bytes(3, 3).prefix(3)) == [0, 255, 0])
        #expect(Array(buffer.bytes(0, 0).prefix(3)) == [0, 0, 0])
        #expect(Array(buffer.bytes(6, 3).prefix(3)) == [0, 0, 0])
        #expect(Array(buffer.bytes(4, 7).prefix(3)) == [0x80, 0x80, 0x80])
    }

    @Test func bgrxClearToColorReplacesEverything() throws {
        let buffer = CanvasPixelBuffer(width: 3, height: 3, format: .bgrx32, fill: 0)
        let canvas = try buffer.makeCanvas()
        canvas.clear(to: .white)
        canvas.finish()
        #expect(buffer.allPixels { Array($0.prefix(3)) == [255, 255, 255] })
    }

    @Test func rgb565PacksRedGreenBlue() throws {
        let buffer = CanvasPixelBuffer(width: 6, height: 2, format: .rgb565)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.fill(CGRect(x: 0, y: 0, width: 2, height: 1), color: .opaqueRed)
        canvas.fill(CGRect(x: 2, y: 0, width: 2, height: 1), color: .opaqueGreen)
        canvas.fill(CGRect(x: 4, y: 0, width: 2, height: 1), color: .opaqueBlue)
        canvas.fill(CGRect(x: 0, y: 1, width: 1, height: 1), color: .white)
        canvas.finish()
        #expect(buffer.bytes(0, 0) == [0x00, 0xF8])
        #expect(buffer.rgb565(1, 0) == 0xF800)
        #expect(buffer.rgb565(2, 0) == 0x07E0)
        #expect(buffer.rgb565(5, 0) == 0x001F)
        #expect(buffer.rgb565(0, 1) == 0xFFFF)
        #expect(buffer.rgb565(1, 1) == 0x0000)
    }

    @Test func gray8WritesBT601LuminanceOnFinish() throws {
        let buffer = CanvasPixelBuffer(width: 8, height: 2, format: .gray8, fill: 200)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        #expect(buffer.bytes(0, 0) == [200], "nothing reaches the target before finish()")
        canvas.fill(CGRect(x: 0, y: 0, width: 2, height: 1), color: .opaqueRed)
        canvas.fill(CGRect(x: 2, y: 0, width: 2, height: 1), color: .opaqueGreen)
        canvas.fill(CGRect(x: 4, y: 0, width: 2, height: 1), color: .opaqueBlue)
        canvas.fill(CGRect(x: 6, y: 0, width: 2, height: 1), color: .white)
        canvas.fill(CGRect(x: 0, y: 1, width: 1, height: 1), color: CanvasColor(white: 1, alpha: 0.5))
        canvas.finish()
        #expect(buffer.bytes(0, 0) == [77])
        #expect(buffer.bytes(3, 0) == [149])
        #expect(buffer.bytes(5, 0) == [29])
        #expect(buffer.bytes(7, 0) == [255])
        #expect(buffer.bytes(0, 1) == [128], "transparency is composited over black")
        #expect(buffer.bytes(1, 1) == [0], "clear() is black for gray8")
    }

    @Test func gray8KeepsExistingPixelsAndFinishIsIdempotent() throws {
        let buffer = CanvasPixelBuffer(width: 6, height: 6, format: .gray8, fill: 100)
        let canvas = try buffer.makeCanvas()
        canvas.fill(CGRect(x: 2, y: 2, width: 2, height: 2), color: .white)
        canvas.finish()
        #expect(buffer.bytes(0, 0) == [100])
        #expect(buffer.bytes(5, 5) == [100])
        #expect(buffer.bytes(2, 3) == [255])
        let first = (0..<6).flatMap { y in (0..<6).flatMap { x in buffer.bytes(x, y) } }
        canvas.finish()
        let second = (0..<6).flatMap { y in (0..<6).flatMap { x in buffer.bytes(x, y) } }
        #expect(first == second)
        canvas.fill(CGRect(x: 0, y: 0, width: 1, height: 1), color: .black)
        canvas.finish()
        #expect(buffer.bytes(0, 0) == [0], "drawing may continue after finish()")
    }

    @Test(arguments: PixelFormat.allCases)
    func sizeIsPixelsDividedByScale(format: PixelFormat) throws {
        let buffer = CanvasPixelBuffer(width: 30, height: 12, format: format)
        let canvas = try buffer.makeCanvas(scale: 3)
        #expect(canvas.size == CGSize(width: 10, height: 4))
        #expect(canvas.scale == 3)
        #expect(canvas.pixelFormat == format)
    }

    @Test(arguments: PixelFormat.allCases)
    func paddedRowsKeepTheirPaddingBytes(format: PixelFormat) throws {
        let buffer = CanvasPixelBuffer(width: 10, height: 5, format: format, bytesPerRow: 64, fill: 0xCD)
        let canvas = try buffer.makeCanvas()
        canvas.clear(to: .white)
        canvas.fill(CGRect(x: -5, y: -5, width: 40, height: 40), color: .opaqueRed)
        canvas.stroke(.rect(CGRect(x: 0, y: 0, width: 10, height: 5)), color: .opaqueBlue, lineWidth: 6)
        let image = makeCanvasTestImage(width: 3, height: 3) { _, _ in CanvasBGRA.blue }
        canvas.draw(image, in: CGRect(x: -10, y: -10, width: 50, height: 50), contentMode: .stretch)
        canvas.finish()
        #expect(buffer.paddingBytes.count == (64 - 10 * format.bytesPerPixel) * 5)
        #expect(buffer.paddingBytes.allSatisfy { $0 == 0xCD })
        #expect(buffer.bytes(9, 4) != [UInt8](repeating: 0xCD, count: format.bytesPerPixel), "the last pixel was drawn")
    }
}
