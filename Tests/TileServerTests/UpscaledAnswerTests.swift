import FICTestSupport
import Foundation
import Testing
import TileServer

/// Answers to `^` sizes that enlarge the region: bilinear between the region's own pixels, over
/// HTTP, whether the `^` comes escaped or as browsers send it.
@Suite struct UpscaledAnswerTests {
    let store: SpecificationStore
    init() throws { store = try SpecificationStore() }

    /// Each enlarged pixel is the bilinear blend of the four region pixels around its centre
    /// (centres aligned, edges repeated), within the 8-bit weights' rounding: across the
    /// checkerboard's sharp edges too, enlarged on one side only as well as on both.
    @Test(arguments: [(30, 10, 14, 23, 56, 92), (0, 0, 37, 23, 148, 92), (100, 50, 9, 7, 40, 7)])
    func enlargedPixelsAreBilinear(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ outputWidth: Int, _ outputHeight: Int) async throws {
        let path = "example/\(x),\(y),\(w),\(h)/^\(outputWidth),\(outputHeight)/0/default.png"
        let answer = try #require(try await OverHTTP.answers(try store.server(), [path]).first)
        #expect(answer.status == 200, "\(answer.text)")
        let picture = try Picture(answer.body)
        #expect(picture.width == outputWidth && picture.height == outputHeight)
        func tap(_ i: Int, _ output: Int, _ source: Int) -> (Int, Int, Double) {
            let position = min(max((Double(i) + 0.5) * Double(source) / Double(output) - 0.5, 0), Double(source - 1))
            let first = Int(position)
            return (first, min(first + 1, source - 1), position - Double(first))
        }
        var worst = 0.0
        for py in 0..<outputHeight {
            let (y0, y1, fy) = tap(py, outputHeight, h)
            for px in 0..<outputWidth {
                let (x0, x1, fx) = tap(px, outputWidth, w)
                let corners = [
                    PatternStore.pixel(x + x0, y + y0), PatternStore.pixel(x + x1, y + y0),
                    PatternStore.pixel(x + x0, y + y1), PatternStore.pixel(x + x1, y + y1)
                ]
                let got = picture.pixel(px, py)
                let channels: [(UInt8, ((r: UInt8, g: UInt8, b: UInt8)) -> UInt8)] = [
                    (got.r, { $0.r }), (got.g, { $0.g }), (got.b, { $0.b })
                ]
                for (value, channel) in channels {
                    let c = corners.map { Double(channel($0)) }
                    let want = (c[0] * (1 - fx) + c[1] * fx) * (1 - fy) + (c[2] * (1 - fx) + c[3] * fx) * fy
                    worst = max(worst, abs(Double(value) - want))
                }
            }
        }
        // Weights are in 256ths: a 170-step edge is off by at most 170/512 per axis, plus rounding.
        #expect(worst <= 1.5, "largest difference \(worst)")
    }

    /// Browsers send `^` in a path as it is; the server reads it so.
    @Test func caretUnescapedInTheRequestLine() async throws {
        try await ErrorBodyTests.application(try store.server()).test(.live) { client in
            let port = try #require(client.port)
            let answer = try await OwnThread.running {
                try LoopbackSocket.exchange(
                    port,
                    Array("GET /iiif/3/example/full/^pct:120/0/default.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(300))")
            #expect(answer.lowercased().contains("content-type: image/jpeg"))
        }
    }
}
