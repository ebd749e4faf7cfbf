import FastImageCache
import Foundation
import Testing

@Suite("ImageCanvas clipping, paths and scale")
struct CanvasClipTests {
    @Test func roundedRectClipLeavesCornersTransparent() throws {
        let buffer = CanvasPixelBuffer(width: 40, height: 40, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.withSavedState {
            canvas.clip(toRoundedRect: CGRect(x: 0, y: 0, width: 40, height: 40), cornerRadius: 10)
            canvas.fill(CGRect(x: 0, y: 0, width: 40, height: 40), color: .opaqueRed)
        }
        canvas.finish()
        for (x, y) in [(0, 0), (39, 0), (0, 39), (39, 39), (1, 1), (38, 38)] {
            #expect(buffer.bytes(x, y) == CanvasBGRA.transparent, "corner (\(x), \(y))")
        }
        for (x, y) in [(20, 20), (20, 0), (0, 20), (39, 20), (20, 39), (5, 5), (34, 34)] {
            #expect(buffer.bytes(x, y) == CanvasBGRA.red, "inside (\(x), \(y))")
        }
    }

    @Test func savedStateEndsTheClip() throws {
        let buffer = CanvasPixelBuffer(width: 10, height: 10, format: .bgrx32)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        let result = canvas.withSavedState { () -> Int in
            canvas.clip(to: CGRect(x: 0, y: 0, width: 5, height: 10))
            canvas.fill(CGRect(x: 0, y: 0, width: 10, height: 10), color: .white)
            return 42
        }
        canvas.fill(CGRect(x: 0, y: 9, width: 10, height: 1), color: .opaqueRed)
        canvas.finish()
        #expect(result == 42)
        #expect(Array(buffer.bytes(4, 0).prefix(3)) == [255, 255, 255])
        #expect(Array(buffer.bytes(5, 0).prefix(3)) == [0, 0, 0], "clipped away")
        #expect(Array(buffer.bytes(9, 9).prefix(3)) == [0, 0, 255], "clip ended with the saved state")
    }

    @Test func clearRespectsTheClip() throws {
        let buffer = CanvasPixelBuffer(width: 4, height: 4, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear(to: .white)
        canvas.withSavedState {
            canvas.clip(to: .ellipse(in: CGRect(x: 0, y: 0, width: 2, height: 2)))
            canvas.clip(to: CGRect(x: 0, y: 0, width: 2, height: 2))
            canvas.clear()
        }
        canvas.finish()
        #expect(buffer.bytes(3, 3) == CanvasBGRA.white)
        #expect(buffer.alpha(1, 1) < 255)
    }

    @Test func pointsAreScaledToPixels() throws {
        let buffer = CanvasPixelBuffer(width: 40, height: 40, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas(scale: 2)
        #expect(canvas.size == CGSize(width: 20, height: 20))
        canvas.clear()
        canvas.fill(CGRect(x: 5, y: 5, width: 10, height: 10), color: .opaqueBlue)
        canvas.finish()
        #expect(buffer.bytes(10, 10) == CanvasBGRA.blue)
        #expect(buffer.bytes(29, 29) == CanvasBGRA.blue)
        #expect(buffer.bytes(10, 29) == CanvasBGRA.blue)
        #expect(buffer.bytes(9, 10) == CanvasBGRA.transparent)
        #expect(buffer.bytes(30, 29) == CanvasBGRA.transparent)
        #expect(buffer.bytes(29, 30) == CanvasBGRA.transparent)
        var covered = 0
        for y in 0..<40 { for x in 0..<40 where buffer.alpha(x, y) == 255 { covered += 1 } }
        #expect(covered == 20 * 20)
    }

    @Test func strokeDrawsOnlyTheOutline() throws {
        let buffer = CanvasPixelBuffer(width: 20, height: 20, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.stroke(.rect(CGRect(x: 4, y: 4, width: 12, height: 12)), color: .opaqueRed, lineWidth: 2)
        canvas.finish()
        #expect(buffer.bytes(3, 10) == CanvasBGRA.red)
        #expect(buffer.bytes(4, 10) == CanvasBGRA.red)
        #expect(buffer.bytes(10, 15) == CanvasBGRA.red)
        #expect(buffer.bytes(10, 10) == CanvasBGRA.transparent)
        #expect(buffer.bytes(2, 10) == CanvasBGRA.transparent)
    }

    @Test func ellipseAndCustomPathFill() throws {
        let buffer = CanvasPixelBuffer(width: 20, height: 20, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.fill(.ellipse(in: CGRect(x: 0, y: 0, width: 20, height: 20)), color: .white)
        canvas.finish()
        #expect(buffer.bytes(10, 10) == CanvasBGRA.white)
        #expect(buffer.bytes(10, 1) == CanvasBGRA.white)
        #expect(buffer.bytes(0, 0) == CanvasBGRA.transparent)
        #expect(buffer.bytes(1, 1) == CanvasBGRA.transparent)

        var triangle = CanvasPath()
        triangle.move(to: CGPoint(x: 0, y: 0))
        triangle.addLine(to: CGPoint(x: 20, y: 0))
        triangle.addLine(to: CGPoint(x: 0, y: 20))
        triangle.closeSubpath()
        canvas.clear()
        canvas.fill(triangle, color: .opaqueRed)
        canvas.finish()
        #expect(buffer.bytes(2, 2) == CanvasBGRA.red)
        #expect(buffer.bytes(17, 17) == CanvasBGRA.transparent)
    }

    @Test func arcDirectionFollowsScreenClockwise() throws {
        // A half-disc from 0 to π clockwise (on screen) covers the lower half.
        let buffer = CanvasPixelBuffer(width: 20, height: 20, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        var path = CanvasPath()
        path.addArc(center: CGPoint(x: 10, y: 10), radius: 10, startAngle: 0, endAngle: .pi, clockwise: true)
        path.closeSubpath()
        canvas.fill(path, color: .opaqueRed)
        canvas.finish()
        #expect(buffer.bytes(10, 15) == CanvasBGRA.red)
        #expect(buffer.bytes(10, 5) == CanvasBGRA.transparent)

        var counter = CanvasPath()
        counter.addArc(center: CGPoint(x: 10, y: 10), radius: 10, startAngle: 0, endAngle: .pi, clockwise: false)
        counter.closeSubpath()
        canvas.clear()
        canvas.fill(counter, color: .opaqueRed)
        canvas.finish()
        #expect(buffer.bytes(10, 5) == CanvasBGRA.red)
        #expect(buffer.bytes(10, 15) == CanvasBGRA.transparent)
    }
}
