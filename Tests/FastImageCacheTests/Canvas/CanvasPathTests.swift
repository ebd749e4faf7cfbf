import FastImageCache
import Foundation
import Testing

@Suite("CanvasPath, CanvasColor and ContentMode")
struct CanvasPathTests {
    @Test func equalPathsAreEqualAndHashEqually() {
        let a = CanvasPath.roundedRect(CGRect(x: 0, y: 0, width: 10, height: 10), cornerRadius: 2)
        var b = CanvasPath()
        b.addRoundedRect(CGRect(x: 0, y: 0, width: 10, height: 10), cornerRadius: 2)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a != .roundedRect(CGRect(x: 0, y: 0, width: 10, height: 10), cornerRadius: 3))
        #expect(CanvasPath().isEmpty)
        #expect(!a.isEmpty)
    }

    @Test func zeroRadiusIsARectAndNullRectsAreIgnored() {
        #expect(
            CanvasPath.roundedRect(CGRect(x: 1, y: 2, width: 3, height: 4), cornerRadius: 0)
                == .rect(CGRect(x: 1, y: 2, width: 3, height: 4)))
        #expect(CanvasPath.rect(.null).isEmpty)
        #expect(CanvasPath.ellipse(in: .infinite).isEmpty)
        #expect(CanvasPath.rect(CGRect(x: 4, y: 6, width: -3, height: -4)) == .rect(CGRect(x: 1, y: 2, width: 3, height: 4)))
    }

    @Test func oversizedCornerRadiusIsClampedToACircle() throws {
        let buffer = CanvasPixelBuffer(width: 20, height: 20, format: .bgra32Premultiplied)
        let canvas = try buffer.makeCanvas()
        canvas.clear()
        canvas.fill(.roundedRect(CGRect(x: 0, y: 0, width: 20, height: 20), cornerRadius: 100), color: .opaqueRed)
        canvas.finish()
        #expect(buffer.bytes(10, 10) == CanvasBGRA.red)
        #expect(buffer.bytes(10, 1) == CanvasBGRA.red)
        #expect(buffer.bytes(1, 1) == CanvasBGRA.transparent)
    }

    @Test func colorInitializers() {
        #expect(CanvasColor(white: 0.5) == CanvasColor(red: 0.5, green: 0.5, blue: 0.5, alpha: 1))
        #expect(CanvasColor.clear.alpha == 0)
        #expect(CanvasColor.black == CanvasColor(red: 0, green: 0, blue: 0))
        #expect(CanvasColor.white.red == 1 && CanvasColor.white.alpha == 1)
    }

    @Test func contentModeFrames() {
        let rect = CGRect(x: 10, y: 10, width: 20, height: 20)
        let content = CGSize(width: 200, height: 100)
        #expect(
            ContentMode.aspectFill.frame(forContentOfSize: content, in: rect)
                == CGRect(x: 0, y: 10, width: 40, height: 20))
        #expect(
            ContentMode.aspectFit.frame(forContentOfSize: content, in: rect)
                == CGRect(x: 10, y: 15, width: 20, height: 10))
        #expect(ContentMode.stretch.frame(forContentOfSize: content, in: rect) == rect)
        #expect(ContentMode.aspectFit.frame(forContentOfSize: .zero, in: rect) == rect)
        #expect(ContentMode.allCases.count == 3)
        #expect(ContentMode(rawValue: "aspectFill") == .aspectFill)
    }
}
