import FICHarness
import FICTestSupport
import Foundation
import Testing

/// A real browser on `fic serve`'s viewer page: headless Chromium, driven by selenium through
/// `scripts/serve-browser`.
enum ServeBrowser {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let script = repository + "/scripts/serve-browser"
    static let python = repository + "/.build/python/bin/python3"

    /// What is missing for the browser tests (nil: nothing): Chromium, its driver, or the Python of
    /// `.build/python` (scripts/install-deps installs them all, with selenium and Pillow, which
    /// `scripts/serve-browser` itself reports missing). Only files are looked at: this is read when
    /// the tests are listed, in every run, including the sanitizer runs that skip these tests.
    static let missing: String? = {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", python] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing: run scripts/install-deps"
        }
        return nil
    }()

    /// Whether the tests run: the browser is there, or `scripts/test` requires it (then they fail without it).
    static var shouldTest: Bool { missing == nil || TestWebServer.isRequired }

    /// The skip reason, printed by Swift Testing.
    static var skipReason: Comment { Comment(rawValue: "\(missing ?? "") (set FIC_REQUIRE_TEST_SERVER=1 to make this a failure)") }

    /// Runs `scripts/serve-browser ARGUMENTS` and returns its standard output; records its error output on failure.
    static func run(_ arguments: [String]) throws -> String {
        if let missing { Issue.record("the browser test is required (FIC_REQUIRE_TEST_SERVER=1) but \(missing)") }
        let run = try ChildProcess.capture(python, [script] + arguments)
        try #require(run.status == 0, "scripts/serve-browser \(arguments.first ?? "") failed: \(run.stderr)")
        return run.stdout
    }
}

@Suite("fic serve in a real browser (headless Chromium)", .serialized)
struct ServeBrowserTests {
    /// The test pattern of `scripts/serve-browser pattern`: 12 × 8 blocks of 500 × 500, block
    /// (i, j) of this colour on average (a checkerboard of squares 16 lighter and 16 darker).
    static func blockColour(_ i: Int, _ j: Int) -> (r: Int, g: Int, b: Int) {
        (15 + 20 * i, 15 + 30 * j, (i + j) % 2 == 0 ? 40 : 210)
    }

    /// The mean red, green and blue of a rectangle of a picture.
    static func mean(_ picture: Picture, x0: Int, y0: Int, x1: Int, y1: Int) -> (r: Double, g: Double, b: Double) {
        var sum = (r: 0.0, g: 0.0, b: 0.0)
        for y in y0..<y1 {
            for x in x0..<x1 {
                let (b, g, r) = picture.bgr(x, y)
                sum.r += Double(r); sum.g += Double(g); sum.b += Double(b)
            }
        }
        let n = Double((x1 - x0) * (y1 - y0))
        return (sum.r / n, sum.g / n, sum.b / n)
    }

    /// The mean absolute difference of a rectangle of two pictures of one size, over all channels.
    static func meanAbsoluteDifference(_ a: Picture, _ b: Picture, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
        var total = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                let p = a.bgr(x, y), q = b.bgr(x, y)
                total += abs(Int(p.0) - Int(q.0)) + abs(Int(p.1) - Int(q.1)) + abs(Int(p.2) - Int(q.2))
            }
        }
        return Double(total) / Double((x1 - x0) * (y1 - y0) * 3)
    }

    @Test(
        "the viewer page shows the right tiles at home, after +, after show(x, y, w, h) and after a wheel turn, fetching from the server alone",
        .enabled(if: ServeBrowser.shouldTest, ServeBrowser.skipReason), .timeLimit(.minutes(10)))
    func viewerShowsTheRightTiles() async throws {
        let folder = try TemporaryFolder()
        let source = folder.path("pattern.png")
        _ = try ServeBrowser.run(["pattern", source])
        let tile = try Fic.run(["tile", source, "--out", folder.path("store") + "/pattern.tif"])
        try #require(tile.status == 0, "fic tile: \(tile.stderr)")
        let server = try await FicServer.start(store: folder.path("store"))
        try FileManager.default.createDirectory(atPath: folder.path("shots"), withIntermediateDirectories: true)
        let output = try ServeBrowser.run([
            "views", "--url", server.base, "--name", "pattern", "--source", source,
            "--out", folder.path("shots"), "--window", "1000x700", "--show", "2550,1560,400,280"
        ])
        server.stop()
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        let canvas = try #require(report["canvas"] as? [Int])
        let bar = try #require(report["bar"] as? [Int])
        let views = try #require(report["views"] as? [[String: Any]])
        #expect(views.map { $0["name"] as? String } == ["home", "plus", "show", "wheel"])
        #expect((report["wheel_events"] as? [Double])?.isEmpty == false, "the wheel turn reached the canvas")

        for view in views {
            let name = view["name"] as? String ?? "?"
            let shot = try Picture(try #require(view["screenshot"] as? String))
            let reference = try Picture(try #require(view["reference"] as? String))
            try #require(shot.width == canvas[0] && shot.height == canvas[1], "\(name): the screenshot is the canvas")
            #expect(view["level"] as? Int == view["expected_level"] as? Int, "\(name): the level drawn")
            // The image's area on the canvas, a pixel in from its edges, below the button bar.
            let area = try #require(view["image_area"] as? [Int])
            let x0 = area[0] + 1, x1 = area[2] - 1, y0 = max(area[1] + 1, bar[3] + 2), y1 = area[3] - 1
            try #require(x1 - x0 > 100 && y1 - y0 > 100, "\(name): the image fills the view")
            let psnr = shot.psnr(x: x0, y: y0, w: x1 - x0, h: y1 - y0, against: reference, ox: x0, oy: y0)
            let difference = Self.meanAbsoluteDifference(shot, reference, x0: x0, y0: y0, x1: x1, y1: y1)
            print(
                "serve browser \(name): level \(view["level"] ?? "?"), PSNR \(String(format: "%.1f", psnr)) dB, mean difference \(String(format: "%.2f", difference))"
            )
            #expect(psnr > 26, "\(name): PSNR \(psnr) dB against Pillow's view of the source")
            #expect(difference < 8, "\(name): mean absolute difference \(difference)")

            // Each block whose middle (100 × 100 image pixels) is on the canvas, off the bar,
            // shows its own colour, not a neighbour's: the right tiles in the right places.
            let scale = try #require(view["scale"] as? Double)
            let ox = try #require(view["x0"] as? Double), oy = try #require(view["y0"] as? Double)
            var checked = 0
            for j in 0..<8 {
                for i in 0..<12 {
                    let sx0 = Int(((Double(i * 500 + 200) - ox) * scale).rounded(.up)) + 1
                    let sx1 = Int(((Double(i * 500 + 300) - ox) * scale).rounded(.down)) - 1
                    let sy0 = Int(((Double(j * 500 + 200) - oy) * scale).rounded(.up)) + 1
                    let sy1 = Int(((Double(j * 500 + 300) - oy) * scale).rounded(.down)) - 1
                    guard sx0 >= 0, sy0 >= 0, sx1 <= canvas[0], sy1 <= canvas[1], sx1 - sx0 >= 6, sy1 - sy0 >= 6,
                        sx0 >= bar[2] || sy0 >= bar[3]
                    else { continue }
                    let seen = Self.mean(shot, x0: sx0, y0: sy0, x1: sx1, y1: sy1)
                    let want = Self.blockColour(i, j)
                    var nearest = (i: -1, j: -1, distance: Double.infinity)
                    for v in 0..<8 {
                        for u in 0..<12 {
                            let c = Self.blockColour(u, v)
                            let d = abs(seen.r - Double(c.r)) + abs(seen.g - Double(c.g)) + abs(seen.b - Double(c.b))
                            if d < nearest.distance { nearest = (u, v, d) }
                        }
                    }
                    #expect(
                        nearest.i == i && nearest.j == j,
                        "\(name): block (\(i), \(j)) shows \(seen), nearest block (\(nearest.i), \(nearest.j))")
                    #expect(
                        abs(seen.r - Double(want.r)) < 6 && abs(seen.g - Double(want.g)) < 6 && abs(seen.b - Double(want.b)) < 6,
                        "\(name): block (\(i), \(j)) shows \(seen), not \(want)")
                    checked += 1
                }
            }
            #expect(checked >= 1, "\(name): some block's middle is in view")
            if name == "home" { #expect(checked >= 95, "home shows every block (but the one under the button bar)") }
        }

        // Nothing came from anywhere but the server, and every tile was answered.
        let requests = try #require(report["requests"] as? [String]), resources = try #require(report["resources"] as? [String])
        #expect(requests.contains { $0.contains("/dzi/pattern_files/") })
        for url in requests + resources {
            #expect(url.hasPrefix(server.base + "/"), "the browser fetched \(url), not from \(server.base)")
        }
        let statuses = try #require(report["statuses"] as? [String: Any])
        #expect(statuses["failed"] == nil, "failed loads: \(statuses["failed"] ?? "")")
        for (url, status) in statuses where url.contains("/dzi/") || url.contains("/view/") {
            #expect(status as? Int == 200, "\(url) answered \(status)")
        }
    }
}
