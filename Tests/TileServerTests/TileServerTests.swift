import FICCore
import FICTestSupport
import Foundation
import Glibc
import Testing
import TileServer

/// The server's answers, checked against the pattern's own pixels (computed by the tests, not read
/// back from the pyramid).
@Suite struct TileServerTests {
    let store: PatternStore
    init() throws { store = try PatternStore() }

    private var base: String { "/iiif/3/\(PatternStore.name)" }

    /// At full resolution a PNG answer is the pattern itself, across tile edges and up to the image's edge.
    @Test(arguments: [(0, 0, 300, 200), (250, 250, 20, 20), (1400, 1000, 200, 200), (511, 767, 258, 3)])
    func regionsAtFullResolutionAreExact(_ x: Int, _ y: Int, _ w: Int, _ h: Int) async throws {
        let answer = await store.get("\(base)/\(x),\(y),\(w),\(h)/max/0/default.png")
        #expect(answer.status == 200 && answer.header("Content-Type") == "image/png")
        let picture = try Picture(answer.body)
        let (cw, ch) = (min(w, PatternStore.width - x), min(h, PatternStore.height - y))
        #expect(picture.width == cw && picture.height == ch)
        var wrong = 0
        for py in 0..<ch { for px in 0..<cw where picture.pixel(px, py) != PatternStore.pixel(x + px, y + py) { wrong += 1 } }
        #expect(wrong == 0)
    }

    /// Smaller sizes are the areas' averages: within a level's rounding at whole factors, within a
    /// few levels at any other.
    @Test(arguments: [("0,0,1024,1024", 256, 256, 1.0, 3.0), ("full", 500, 367, 1.5, 14.0), ("100,50,901,333", 300, 111, 1.5, 14.0)])
    func scaledAnswersAverageTheirArea(_ region: String, _ w: Int, _ h: Int, _ meanLimit: Double, _ maxLimit: Double) async throws {
        let answer = await store.get("\(base)/\(region)/\(w),\(h)/0/default.png")
        #expect(answer.status == 200)
        let picture = try Picture(answer.body)
        #expect(picture.width == w && picture.height == h)
        let r = region == "full" ? [0, 0, PatternStore.width, PatternStore.height] : region.split(separator: ",").map { Int($0)! }
        var total = 0.0, worst = 0.0
        for py in 0..<h {
            for px in 0..<w {
                let sx = Double(r[2]) / Double(w), sy = Double(r[3]) / Double(h)
                let want = PatternStore.average(
                    x0: Double(r[0]) + Double(px) * sx, y0: Double(r[1]) + Double(py) * sy,
                    x1: Double(r[0]) + Double(px + 1) * sx, y1: Double(r[1]) + Double(py + 1) * sy)
                let got = picture.pixel(px, py)
                // Red and green are smooth: the sampling grid's rounding shows only there as small errors.
                for d in [abs(Double(got.r) - want.r), abs(Double(got.g) - want.g)] {
                    total += d
                    worst = max(worst, d)
                }
            }
        }
        let mean = total / Double(2 * w * h)
        #expect(mean <= meanLimit, "mean difference \(mean)")
        #expect(worst <= maxLimit, "largest difference \(worst)")
    }

    /// Mirroring, then turning clockwise, as the Image API orders them.
    @Test(arguments: [("90", false), ("!90", true), ("180", false), ("!0", true), ("270", false), ("!270", true)])
    func rotations(_ rotation: String, _ mirrored: Bool) async throws {
        let (x, y, w, h) = (100, 200, 300, 100)
        let answer = await store.get("\(base)/\(x),\(y),\(w),\(h)/max/\(rotation)/default.png")
        let picture = try Picture(answer.body)
        let degrees = Int(rotation.filter(\.isNumber))!
        let swaps = degrees % 180 != 0
        #expect(picture.width == (swaps ? h : w) && picture.height == (swaps ? w : h))
        var wrong = 0
        for py in 0..<picture.height {
            for px in 0..<picture.width {
                // Undo the turn, then the mirror: the region's pixel shown at (px, py).
                var (rx, ry) =
                    switch degrees {
                    case 90: (py, h - 1 - px)
                    case 180: (w - 1 - px, h - 1 - py)
                    case 270: (w - 1 - py, px)
                    default: (px, py)
                    }
                if mirrored { rx = w - 1 - rx }
                if picture.pixel(px, py) != PatternStore.pixel(x + rx, y + ry) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    /// Grey is each pixel's Rec. 709 luma; bitonal is that thresholded at half.
    @Test func grayAndBitonal() async throws {
        let gray = try Picture(await store.get("\(base)/0,0,200,200/max/0/gray.png").body)
        let bitonal = try Picture(await store.get("\(base)/0,0,200,200/max/0/bitonal.png").body)
        var worst = 0.0, wrong = 0
        for y in 0..<200 {
            for x in 0..<200 {
                let p = PatternStore.pixel(x, y)
                let luma = 0.2126 * Double(p.r) + 0.7152 * Double(p.g) + 0.0722 * Double(p.b)
                let g = gray.pixel(x, y)
                #expect(g.r == g.g && g.g == g.b)
                worst = max(worst, abs(Double(g.r) - luma))
                let b = bitonal.pixel(x, y)
                if !(b.r == b.g && b.g == b.b && (b.r == 0 || b.r == 255)) || (abs(luma - 127.5) > 2 && (b.r == 255) != (luma > 127.5)) {
                    wrong += 1
                }
            }
        }
        #expect(worst <= 1.5)
        #expect(wrong == 0)
    }

    /// JPEG and WebP answers decode to the pattern within their loss (their luma: both halve the
    /// chroma, which the checkerboard's sharp blue edges would otherwise dominate).
    @Test(arguments: ["jpg", "webp"]) func lossyFormats(_ format: String) async throws {
        let answer = await store.get("\(base)/512,256,256,256/max/0/default.\(format)")
        #expect(answer.header("Content-Type") == (format == "jpg" ? "image/jpeg" : "image/webp"))
        let picture = try Picture(answer.body)
        var squared = 0.0
        for y in 0..<256 {
            for x in 0..<256 {
                let (got, want) = (picture.pixel(x, y), PatternStore.pixel(512 + x, 256 + y))
                func luma(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Double { 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b) }
                squared += pow(luma(got) - luma(want), 2)
            }
        }
        let psnr = 10 * log10(255 * 255 / (squared / Double(256 * 256)))
        #expect(psnr >= 30, "PSNR \(psnr) dB")
    }

    /// The image information of a level-2 service, its id made from the Host asked.
    @Test func imageInformation() async throws {
        let answer = await store.get("\(base)/info.json")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type")?.hasPrefix("application/ld+json") == true)
        #expect(answer.header("Access-Control-Allow-Origin") == "*")
        #expect(answer.header("Link")?.contains("level2") == true)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        #expect(info["id"] as? String == "http://tiles.test:8080/iiif/3/pattern")
        #expect(info["type"] as? String == "ImageService3" && info["profile"] as? String == "level2")
        #expect(info["width"] as? Int == 1500 && info["height"] as? Int == 1100)
        let tiles = try #require(info["tiles"] as? [[String: Any]])
        // 1500 → 750 → 375 → 188 (which fits in one tile).
        #expect(tiles.first?["scaleFactors"] as? [Int] == [1, 2, 4, 8] && tiles.first?["width"] as? Int == 256)
        // A Host that is not a host name is never copied into the document.
        #expect(await store.get("\(base)/info.json", host: "evil\"><script>").status == 400)
    }

    /// Validators: an unchanged answer is a 304 by ETag or by date; the base URI redirects.
    @Test func conditionalRequestsAndRedirect() async throws {
        let path = "\(base)/0,0,256,256/256,/0/default.jpg"
        let first = await store.get(path)
        let etag = try #require(first.header("ETag"))
        let modified = try #require(first.header("Last-Modified"))
        #expect(first.header("Cache-Control")?.contains("max-age=") == true)
        let byTag = await store.get(path, ifNoneMatch: etag)
        #expect(byTag.status == 304 && byTag.body.isEmpty)
        #expect(await store.get(path, ifNoneMatch: "\"other\"").status == 200)
        #expect(await store.get(path, ifModifiedSince: modified).status == 304)
        #expect(await store.get(path, ifModifiedSince: "Thu, 01 Jan 1970 00:00:00 GMT").status == 200)
        // Another image of the same pyramid has another tag.
        #expect(await store.get("\(base)/256,0,256,256/256,/0/default.jpg").header("ETag") != etag)
        let redirect = await store.get(base)
        #expect(redirect.status == 303 && redirect.header("Location") == "\(base)/info.json")
    }

    /// A second request for an answer is served from the encoded answers kept.
    @Test func answersAreKept() async throws {
        let path = "\(base)/0,0,512,512/256,256/0/default.jpg"
        let first = await store.get(path)
        let before = store.server.encodedCacheStatistics.hits
        let second = await store.get(path)
        #expect(second.body == first.body)
        #expect(store.server.encodedCacheStatistics.hits == before + 1)
    }

    /// A request the event loop's fast path does not find kept goes on to `respond(to:)`: one
    /// miss, counted once (the fast path's look does not count).
    @Test func aMissIsCountedOnce() async throws {
        #expect(await store.get("\(base)/info.json").status == 200, "the pyramid is open: the fast path looks it up")
        let request = TileServerRequest(path: "\(base)/0,0,300,300/150,/0/default.jpg")
        let before = store.server.encodedCacheStatistics.misses
        #expect(store.server.keptResponse(to: request)?.status == nil)
        #expect(await store.server.respond(to: request).status == 200)
        #expect(store.server.encodedCacheStatistics.misses == before + 1)
        #expect(store.server.keptResponse(to: request)?.status == 200, "kept now, and found by the fast path")
    }

    /// The fast path finds a kept answer by the request's raw path, without parsing it: each
    /// request's path is parsed once (by `respond(to:)`), or never when the fast path answers. A
    /// second spelling of the same answer is parsed once, found kept, and from then on found by
    /// the fast path too.
    @Test func aRouteIsParsedOnce() async throws {
        #expect(await store.get("\(base)/info.json").status == 200, "the pyramid is open: the fast path looks it up")
        let path = "\(base)/0,0,400,400/200,/0/default.jpg"
        let before = store.server.routeParseCount
        #expect(store.server.keptResponse(to: TileServerRequest(path: path))?.status == nil, "not kept yet")
        #expect(store.server.routeParseCount == before, "the fast path parsed the path")
        let made = await store.get(path)
        #expect(made.status == 200 && store.server.routeParseCount == before + 1)
        #expect(store.server.keptResponse(to: TileServerRequest(path: path))?.body == made.body)
        #expect(store.server.routeParseCount == before + 1, "the fast path parsed the path")

        // The same answer asked in another spelling (an escaped letter): one parse, a hit.
        let spelled = "\(base)/0,0,400,400/200,/0/defaul%74.jpg"
        #expect(store.server.keptResponse(to: TileServerRequest(path: spelled))?.status == nil)
        let hits = store.server.encodedCacheStatistics.hits
        #expect(await store.get(spelled).body == made.body)
        #expect(store.server.encodedCacheStatistics.hits == hits + 1 && store.server.routeParseCount == before + 2)
        #expect(store.server.keptResponse(to: TileServerRequest(path: spelled))?.body == made.body)
        #expect(store.server.routeParseCount == before + 2)
    }

    /// A failure of the server's own (a pyramid whose file was cut after its directories) is a
    /// 500 saying why, logged to the logger the server was made with.
    @Test func failuresAreLoggedToTheCallersLogger() async throws {
        let logs = CapturedLogs()
        let store = try PatternStore(logger: logs.logger)
        // 64 KiB holds the header and every directory; each uncompressed tile (192 KiB) ends beyond,
        // so the file is refused when the server opens it.
        let file = try #require(FileHandle(forWritingAtPath: store.folder + "/store/" + PatternStore.name + ".tif"))
        try file.truncate(atOffset: 65_536)
        try file.close()
        let answer = await store.get("/iiif/3/\(PatternStore.name)/0,0,256,256/256,/0/default.jpg")
        #expect(answer.status == 500, "\(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        let logged = logs.messages(atLeast: .error)
        #expect(logged.count == 1 && logged[0].contains("/iiif/3/\(PatternStore.name)/0,0,256,256"), "\(logged)")
    }

    /// Many requests at once for a few answers (on the render threads, the kept answers and the
    /// open pyramids together): each key always gets the same bytes. Under Thread Sanitizer in
    /// scripts/test.
    @Test func concurrentRequests() async throws {
        let paths =
            (0..<12).map { "/dzi/pattern_files/11/\($0 % 6)_\($0 / 6).jpg" }
            + (0..<8).map { "\(base)/\($0 * 100),0,300,300/150,/\($0 % 4 * 90)/gray.png" }
        let answers = await withTaskGroup(of: (String, Int, [UInt8]).self) { group in
            for round in 0..<200 {
                let path = paths[round % paths.count]
                group.addTask {
                    let a = await store.get(path); return (path, a.status, a.body)
                }
            }
            var all: [(String, Int, [UInt8])] = []
            for await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.allSatisfy { $0.1 == 200 })
        let distinct = Dictionary(grouping: answers, by: \.0).mapValues { Set($0.map(\.2)).count }
        #expect(distinct.count == paths.count && distinct.values.allSatisfy { $0 == 1 })
    }

    /// Deep Zoom: the descriptor, and tiles numbered from the 1 × 1 level up.
    @Test func deepZoom() async throws {
        let descriptor = String(decoding: await store.get("/dzi/pattern.dzi").body, as: UTF8.self)
        #expect(
            descriptor.contains("TileSize=\"256\"") && descriptor.contains("Overlap=\"0\"")
                && descriptor.contains("Width=\"1500\" Height=\"1100\""))
        // 1500 wide: levels 0 (1 × 1) to 11 (full).
        let top = try Picture(await store.get("/dzi/pattern_files/11/5_4.jpg").body)
        #expect(top.width == 1500 - 5 * 256 && top.height == 1100 - 4 * 256)
        let p = top.pixel(10, 10), want = PatternStore.pixel(5 * 256 + 10, 4 * 256 + 10)
        #expect(abs(Int(p.g) - Int(want.g)) <= 8)
        let single = try Picture(await store.get("/dzi/pattern_files/0/0_0.jpg").body)
        #expect(single.width == 1 && single.height == 1)
        #expect(await store.get("/dzi/pattern_files/12/0_0.jpg").status == 404)
        #expect(await store.get("/dzi/pattern_files/11/6_0.jpg").status == 404)
    }

    /// Names and paths that try to leave the store, or name nothing, are 404s; a malformed path a
    /// 400; a bad parameter a 400 with its reason.
    @Test func hostilePaths() async throws {
        for path in [
            "/iiif/3/../info.json", "/iiif/3/%2e%2e/info.json", "/iiif/3/..%2F..%2Fetc/info.json", "/iiif/3/.hidden/info.json",
            "/iiif/3/a%2Fb/full/max/0/default.jpg", "/dzi/..%2Fpattern.dzi", "/view/%2Fetc%2Fpasswd", "/iiif/3/nope/info.json",
            "/iiif/2/pattern/info.json", "/etc/passwd", "/iiif/3/pattern/full/max/0"
        ] {
            #expect(await store.get(path).status == 404, "\(path)")
        }
        for path in [
            "/iiif/3/pattern%/info.json", "/iiif/3/pat%00tern/info.json", "/iiif/3/%ff%fe/info.json",
            "/" + String(repeating: "a", count: 5000)
        ] {
            #expect(await store.get(path).status == 400, "\(path)")
        }
        let refused = await store.get("\(base)/full/3000,/0/default.jpg")
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("larger than"))
    }

    /// Serving writes nothing to the store: every file keeps its size and times.
    @Test func theStoreIsLeftAsItWas() async throws {
        func snapshot() throws -> [String: [Int]] {
            let root = store.folder + "/store"
            var files: [String: [Int]] = [:]
            for name in try #require(FileManager.default.subpathsOfDirectory(atPath: root) as [String]?) {
                var info = stat()
                #expect(stat(root + "/" + name, &info) == 0)
                files[name] = [
                    Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ctim.tv_sec),
                    Int(info.st_ctim.tv_nsec)
                ]
            }
            return files
        }
        let before = try snapshot()
        for path in ["/", "\(base)/info.json", "\(base)/full/max/0/default.jpg", "/dzi/pattern_files/11/0_0.jpg", "/view/pattern"] {
            #expect(await store.get(path).status == 200)
        }
        #expect(try snapshot() == before)
    }

    /// The viewer page and the list of pyramids come from the server alone.
    @Test func pages() async throws {
        let page = String(decoding: await store.get("/view/pattern").body, as: UTF8.self)
        #expect(page.contains("<canvas") && page.contains("const W = 1500, H = 1100"))
        #expect(!page.contains("http://") && !page.contains("https://"), "nothing is fetched from elsewhere")
        let index = String(decoding: await store.get("/").body, as: UTF8.self)
        #expect(index.contains("view/pattern"))
    }
}
