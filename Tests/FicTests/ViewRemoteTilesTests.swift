import FICHarness
import FICTestSupport
import Foundation
import Testing

extension ViewTests {
    /// `fic view photo URL` on a remote tiled image: trees made by `vips dzsave` (Deep Zoom, IIIF 3)
    /// and by `fic tile --layout iiif`, served by the tests' nginx through its logged location.
    @Suite(
        "photo from a remote tile service (Deep Zoom, IIIF)",
        .enabled(
            if: TestWebServer.shared != nil || TestWebServer.isRequired,
            "nginx is not running: start it with scripts/test-server start (scripts/test does)"))
    struct RemoteTiles {
        /// The source photo's size: 12 × 8 tiles of 254 at full resolution.
        static let width = 3000, height = 1800

        /// A served folder holding `source.jpg`, the rocket scaled to 3000 × 1800; returns its name.
        private func publishSource(_ server: TestWebServer) throws -> String {
            let name = "remote-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: server.root + "/" + name, withIntermediateDirectories: true)
            try ExternalTools.run(
                "/usr/bin/vips",
                [
                    "thumbnail", Fic.testdata + "/photos/rocket.jpg", server.root + "/" + name + "/source.jpg[Q=95,strip]",
                    "\(Self.width)", "--height", "\(Self.height)", "--size", "force", "--export-profile", "srgb"
                ])
            return name
        }

        /// A served folder holding the source (``publishSource(_:)``) and its Deep Zoom tree
        /// `image.dzi` made by `vips dzsave` (254-pixel tiles, overlap 1, JPEG quality 95);
        /// returns the folder's name and path. The folder is removed if the tree cannot be made.
        private func publishDeepZoom(_ server: TestWebServer) throws -> (name: String, tree: String) {
            let name = try publishSource(server)
            let tree = server.root + "/" + name
            do {
                try ExternalTools.run("/usr/bin/vips", ["dzsave", tree + "/source.jpg", tree + "/image", "--suffix", ".jpg[Q=95]"])
            } catch {
                server.unpublish(name)
                throw error
            }
            return (name, tree)
        }

        /// The paths requested under `/logged/FOLDER/` (the nginx access log's lines for that folder).
        private func requests(_ server: TestWebServer, folder: String) -> [String] {
            let log = (server.root as NSString).deletingLastPathComponent + "/access.log"
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count > 6, fields[6].hasPrefix("/logged/\(folder)/") else { return nil }
                return String(fields[6].dropFirst("/logged/\(folder)/".count))
            }
        }

        /// The requests the viewer counted, once nginx's log shows them all (it writes a line
        /// after the response, so the viewer may have exited a moment before).
        private func loggedRequests(_ server: TestWebServer, folder: String, stats: [String: Any]) async throws -> [String] {
            let counted = try #require(stats["network_requests"] as? Int)
            try await waitUntil("nginx logged the viewer's \(counted) requests", timeout: .seconds(30)) {
                requests(server, folder: folder).count >= counted
            }
            return requests(server, folder: folder)
        }

        /// Runs `fic view photo URL` in a 640 × 400 window with `script`, its tiles in `cache`.
        private func view(_ url: String, script: String, folder: TemporaryFolder, cache: String, stats: String) throws -> [String: Any] {
            let path = folder.path("script-\(UUID().uuidString)")
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "photo", url, "--size", "640x400", "--no-overlay", "--script", path, "--cache", cache,
                    "--stats", folder.path(stats)
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            return try ViewRunner.stats(folder.path(stats))
        }

        /// Checks a 1:1 screenshot against the source's pixels at the view's origin (from the
        /// statistics): a PSNR over 38 dB, JPEG tiles of quality 95 being all that differs.
        private func expectSource(
            _ screenshot: String, source: String, stats: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            #expect(stats["scale"] as? Double == 1, sourceLocation: sourceLocation)
            let x = Int(try #require(stats["origin_x"] as? Double).rounded()), y = Int(try #require(stats["origin_y"] as? Double).rounded())
            let shown = try Picture(screenshot), original = try Picture(source)
            let psnr = shown.psnr(x: 0, y: 0, w: 640, h: 400, against: original, ox: x, oy: y)
            #expect(psnr > 38, "PSNR \(psnr) dB against the source at (\(x), \(y))", sourceLocation: sourceLocation)
        }

        /// Shows `url` at 1:1 around the photo's centre (its tiles in a new cache), checks the
        /// screenshot against `source` and that every tile was read; returns the statistics.
        @discardableResult
        private func expectCentreLikeSource(_ url: String, source: String, sourceLocation: SourceLocation = #_sourceLocation) throws
            -> [String: Any]
        {
            let folder = try TemporaryFolder()
            let stats = try view(
                url,
                script: """
                    \(zoomToCentre)
                    wait-idle
                    screenshot \(folder.path("one.png"))
                    """, folder: folder, cache: folder.path("cache"), stats: "stats.json")
            #expect(stats["remote"] as? Int == 1 && stats["tiles_unreadable"] as? Int == 0, sourceLocation: sourceLocation)
            try expectSource(folder.path("one.png"), source: source, stats: stats, sourceLocation: sourceLocation)
            return stats
        }

        /// At 1:1 around the photo's centre (the rocket: detail across tiles' seams in both directions).
        private let zoomToCentre = "zoom-to 1 at 320 200"

        @Test("a vips Deep Zoom tree (254-pixel tiles, overlap 1) is shown as its source: fitted, as `vips resize` scales it, and at 1:1")
        func deepZoomLooksLikeTheSource() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let (published, tree) = try publishDeepZoom(server); defer { server.unpublish(published) }
            let folder = try TemporaryFolder()
            let stats = try view(
                "\(server.base)/logged/\(published)/image.dzi",
                script: """
                    wait-idle
                    screenshot \(folder.path("fit.png"))
                    \(zoomToCentre)
                    wait-idle
                    screenshot \(folder.path("one.png"))
                    """, folder: folder, cache: folder.path("cache"), stats: "stats.json")
            #expect(stats["remote"] as? Int == 1 && stats["tile_width"] as? Int == 254)
            #expect(stats["tiles_unreadable"] as? Int == 0)
            #expect(stats["script_waits_timed_out"] as? Int == 0)
            try expectSource(folder.path("one.png"), source: tree + "/source.jpg", stats: stats)
            // Fitted: 640 × 384, centred (8 rows above); the reference is vips's own resize of the source.
            let scale = min(640.0 / Double(Self.width), 400.0 / Double(Self.height))
            try ExternalTools.run("/usr/bin/vips", ["resize", tree + "/source.jpg", folder.path("fitted.png"), "\(scale)"])
            let fitted = try Picture(folder.path("fitted.png")), shown = try Picture(folder.path("fit.png"))
            #expect(fitted.width == 640 && fitted.height == 384)
            let psnr = shown.psnr(x: 0, y: 8, w: 640, h: 384, against: fitted, ox: 0, oy: 0)
            #expect(psnr > 32, "PSNR \(psnr) dB against vips resize")
        }

        @Test(
            "through a slow link, tiles the view left before they arrived are moved to the slow lane and cancelled, and some never fetched")
        func leftTilesAreDemotedOrCancelled() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let (published, tree) = try publishDeepZoom(server); defer { server.unpublish(published) }
            // About a dozen tiles a second: the first corner's tiles are still on their way when the view leaves.
            let link = try ThrottledLink(targetPort: try #require(URL(string: server.base)?.port), bytesPerSecond: 400_000)
            defer { link.stop() }
            let folder = try TemporaryFolder()
            let stats = try view(
                "http://127.0.0.1:\(link.port)/logged/\(published)/image.dzi",
                script: """
                    wait-idle
                    zoom-to 1 at 0 0
                    wait 2
                    pan 500 0
                    wait 2
                    fit
                    zoom-to 1 at 639 399
                    wait-idle
                    screenshot \(folder.path("corner.png"))
                    """, folder: folder, cache: folder.path("cache"), stats: "stats.json")
            #expect(stats["script_waits_timed_out"] as? Int == 0 && stats["tiles_unreadable"] as? Int == 0)
            let demoted = stats["tiles_demoted"] as? Int ?? 0, cancelled = stats["tiles_cancelled"] as? Int ?? 0
            print(
                "slow link: demoted \(demoted), cancelled \(cancelled), asked \((stats["tiles_requested_fast"] as? Int ?? 0) + (stats["tiles_prefetched"] as? Int ?? 0)), fetched \(stats["tile_fetches"] as? Int ?? -1)"
            )
            // Panned by most of the window: the tiles that left the view but stay near go to the slow
            // lane; zoomed to the far corner: the rest leave the plan and are cancelled.
            #expect(demoted > 0, "tiles that left the view but stay near are moved to the slow lane")
            #expect(cancelled > 0, "tiles that left the plan are cancelled")
            // Asked for (visible on the fast lane, the ring on the slow one) but never fetched: cancelled in time.
            let asked = (stats["tiles_requested_fast"] as? Int ?? 0) + (stats["tiles_prefetched"] as? Int ?? 0)
            let fetched = stats["tile_fetches"] as? Int ?? Int.max
            #expect(fetched < asked, "\(fetched) tiles fetched of \(asked) asked for")
            // The final view is still right: the source's pixels at the bottom-right corner.
            try expectSource(folder.path("corner.png"), source: tree + "/source.jpg", stats: stats)
        }

        @Test("zoomed into a corner, only the tiles near the view are fetched; a restart revisiting it fetches no tile and decodes nothing")
        func onlyNearTilesAndNothingOnRevisit() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let (published, tree) = try publishDeepZoom(server); defer { server.unpublish(published) }
            let folder = try TemporaryFolder()
            // The default cache folder ($XDG_CACHE_HOME/fic), the same for both runs.
            let xdg = folder.path("xdg")
            func run(_ stats: String, _ screenshot: String) throws -> [String: Any] {
                let script = folder.path("corner.script")
                try """
                zoom-to 1 at 0 0
                wait-idle
                screenshot \(folder.path(screenshot))
                """.write(toFile: script, atomically: true, encoding: .utf8)
                let run = try ViewRunner.run(
                    [
                        "view", "photo", "\(server.base)/logged/\(published)/image.dzi", "--size", "640x400", "--no-overlay",
                        "--script", script, "--stats", folder.path(stats)
                    ], width: 640, height: 400, environment: ["XDG_CACHE_HOME": xdg])
                #expect(run.status == 0, "\(run.stderr)")
                return try ViewRunner.stats(folder.path(stats))
            }
            let first = try run("first.json", "first.png")
            #expect(first["level"] as? Int == 0 && first["script_waits_timed_out"] as? Int == 0)
            let fetched = try await loggedRequests(server, folder: published, stats: first)
            // Full resolution is Deep Zoom level 12 (3000 px: 12 halvings to 1 px): 12 × 8 tiles.
            let finest = fetched.filter { $0.hasPrefix("image_files/12/") }.map { name -> (Int, Int) in
                let cell = name.dropFirst("image_files/12/".count).dropLast(".jpg".count).split(separator: "_").compactMap { Int($0) }
                return (cell.first ?? -1, cell.last ?? -1)
            }
            // On screen: columns 0…2, rows 0…1; the ring adds column 3 and row 2.
            #expect(finest.count >= 6 && finest.allSatisfy { $0.0 >= 0 && $0.0 <= 3 && $0.1 >= 0 && $0.1 <= 2 }, "\(finest)")
            #expect(fetched.count == Set(fetched).count, "a tile fetched twice: \(fetched.sorted())")
            #expect(fetched.count < 30, "\(fetched.count) requests for a view of 6 tiles: \(fetched.sorted())")
            #expect(first["tile_decodes"] as? Int == fetched.count - 1, "one decode per tile")
            try expectSource(folder.path("first.png"), source: tree + "/source.jpg", stats: first)
            let stored = (try? FileManager.default.contentsOfDirectory(atPath: xdg + "/fic")) ?? []
            #expect(stored.contains { $0.hasPrefix("remote-") }, "the tiles are kept under $XDG_CACHE_HOME/fic: \(stored)")

            let second = try run("second.json", "second.png")
            let again = try await loggedRequests(server, folder: published, stats: second)
            #expect(again.count - fetched.count == 1 && again.last == "image.dzi", "only the descriptor: \(again.dropFirst(fetched.count))")
            #expect(second["network_requests"] as? Int == 1)
            #expect(second["tile_fetches"] as? Int == 0)
            #expect(second["tile_decodes"] as? Int == 0)
            let a = try Picture(folder.path("first.png")), b = try Picture(folder.path("second.png"))
            #expect(a.differences(x: 0, y: 0, w: 640, h: 400, from: b, ox: 0, oy: 0) == 0)
        }

        @Test("a tile that fails (404) keeps its coarser stand-in, is asked for once however the view moves, and the viewer still settles")
        func failedTileStandsIn() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let (published, tree) = try publishDeepZoom(server); defer { server.unpublish(published) }
            // At 1:1 around the centre the view starts at (1180, 700): full-resolution tile (5, 3) is
            // on screen at (90, 62)…(344, 316).
            try FileManager.default.removeItem(atPath: tree + "/image_files/12/5_3.jpg")
            let folder = try TemporaryFolder()
            let stats = try view(
                "\(server.base)/logged/\(published)/image.dzi",
                script: """
                    \(zoomToCentre)
                    wait-idle
                    pan 8 0
                    wait-idle
                    pan -8 0
                    wait-idle
                    screenshot \(folder.path("one.png"))
                    """, folder: folder, cache: folder.path("cache"), stats: "stats.json")
            #expect(stats["tiles_unreadable"] as? Int == 1)
            #expect(stats["script_waits_timed_out"] as? Int == 0, "the viewer settles with a tile that failed")
            let fetched = try await loggedRequests(server, folder: published, stats: stats)
            #expect(fetched.filter { $0 == "image_files/12/5_3.jpg" }.count == 1, "asked once: \(fetched.sorted())")
            // The hole shows the coarser level's pixels, blurred but the photo's, not the background.
            let shown = try Picture(folder.path("one.png")), original = try Picture(tree + "/source.jpg")
            let psnr = shown.psnr(x: 100, y: 72, w: 234, h: 234, against: original, ox: 1280, oy: 772)
            #expect(psnr > 22, "PSNR \(psnr) dB of the stand-in against the source")
        }

        @Test("a vips IIIF 3 tree is shown through its info.json, at 1:1 as its source")
        func vipsIIIF3() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let published = try publishSource(server); defer { server.unpublish(published) }
            let tree = server.root + "/" + published
            try ExternalTools.run(
                "/usr/bin/vips",
                [
                    "dzsave", tree + "/source.jpg", tree + "/iiif", "--layout", "iiif3", "--suffix", ".jpg[Q=95]",
                    "--id", "\(server.base)/logged/\(published)"
                ])
            let stats = try expectCentreLikeSource("\(server.base)/logged/\(published)/iiif/info.json", source: tree + "/source.jpg")
            #expect(stats["script_waits_timed_out"] as? Int == 0)
        }

        @Test("a `fic tile --layout iiif` tree is shown from its IIIF base URL (no info.json given)")
        func ficTreeFromBaseURL() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let published = try publishSource(server); defer { server.unpublish(published) }
            let tree = server.root + "/" + published
            let base = "\(server.base)/logged/\(published)/tree/iiif"
            let tile = try Fic.run([
                "tile", tree + "/source.jpg", "--out", tree + "/tree", "--layout", "iiif", "--quality", "95", "--iiif-id", base
            ])
            #expect(tile.status == 0, "\(tile.stderr)")
            let stats = try expectCentreLikeSource(base, source: tree + "/source.jpg")
            #expect(stats["tile_width"] as? Int == 256)
        }

        @Test("a descriptor that is missing (404): a clear message and exit status 1, no window")
        func missingDescriptor() throws {
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let folder = try TemporaryFolder()
            let url = "\(server.base)/logged/missing-\(UUID().uuidString)/image.dzi"
            let run = try Fic.run(["view", "photo", url, "--cache", folder.path("cache")])
            #expect(run.status == 1)
            #expect(run.stderr.contains("cannot open the remote tiled image \(url)") && run.stderr.contains("404"), "\(run.stderr)")
        }

        /// The requests under `/logged/FOLDER/` with their status and body bytes.
        private func loggedResponses(_ server: TestWebServer, folder: String) -> [(path: String, status: Int, bytes: Int)] {
            let log = (server.root as NSString).deletingLastPathComponent + "/access.log"
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[6].hasPrefix("/logged/\(folder)/"), let status = Int(fields[8]), let bytes = Int(fields[9])
                else { return nil }
                return (String(fields[6].dropFirst("/logged/\(folder)/".count)), status, bytes)
            }
        }

        /// ``loggedResponses(_:folder:)`` once nginx has logged the `counted` requests the viewer
        /// made (it writes a line after the response, so the viewer may have exited a moment before).
        private func loggedResponses(_ server: TestWebServer, folder: String, counted: Int) async throws -> [(
            path: String, status: Int, bytes: Int
        )] {
            try await waitUntil("nginx logged the viewer's \(counted) requests", timeout: .seconds(30)) {
                loggedResponses(server, folder: folder).count >= counted
            }
            return loggedResponses(server, folder: folder)
        }

        @Test(
            "a pyramidal TIFF on nginx is read by ranges: its header, then the tiles near the view, each a 206; shown as the source; a restart asks for the header alone"
        )
        func pyramidalTIFFByRanges() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let published = try publishSource(server)
            defer { server.unpublish(published) }
            let tree = server.root + "/" + published
            // Raw tiles: level 0 is the source's decode, pixel for pixel.
            let tiled = try Fic.run(["tile", tree + "/source.jpg", "--out", tree + "/image.tif", "--compression", "none"])
            #expect(tiled.status == 0, "\(tiled.stderr)")
            let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: tree + "/image.tif")[.size] as? Int)
            let folder = try TemporaryFolder()
            let url = "\(server.base)/logged/\(published)/image.tif"
            let script = """
                zoom-to 1 at 0 0
                wait-idle
                screenshot \(folder.path("corner.png"))
                """
            let first = try view(url, script: script, folder: folder, cache: folder.path("cache"), stats: "first.json")
            #expect(first["level"] as? Int == 0 && first["script_waits_timed_out"] as? Int == 0 && first["tiles_unreadable"] as? Int == 0)
            let counted = try #require(first["network_requests"] as? Int)
            let responses = try await loggedResponses(server, folder: published, counted: counted)
            #expect(responses.count == counted && responses.allSatisfy { $0.path == "image.tif" && $0.status == 206 }, "\(responses)")
            let fetched = responses.reduce(0) { $0 + $1.bytes }
            #expect(fetched < fileBytes / 4, "\(fetched) of the file's \(fileBytes) bytes for a corner")
            #expect(first["tile_fetches"] as? Int == counted - 1, "one range a tile, and the header")
            let x = Int(try #require(first["origin_x"] as? Double).rounded()), y = Int(try #require(first["origin_y"] as? Double).rounded())
            let shown = try Picture(folder.path("corner.png")), original = try Picture(tree + "/source.jpg")
            #expect(shown.differences(x: 0, y: 0, w: 640, h: 400, from: original, ox: x, oy: y) == 0, "the source's pixels at (\(x), \(y))")

            let second = try view(url, script: script, folder: folder, cache: folder.path("cache"), stats: "second.json")
            #expect(second["network_requests"] as? Int == 1 && second["tile_fetches"] as? Int == 0, "only the header: \(second)")
        }

        @Test(
            "a `vips tiffsave --tile --pyramid` JPEG TIFF on nginx (128-pixel tiles) is shown as its source, fitted and at 1:2, read by ranges only"
        )
        func vipsPyramidalTIFFScaled() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let published = try publishSource(server)
            defer { server.unpublish(published) }
            let tree = server.root + "/" + published
            // As a site would publish it: vips's defaults (128-pixel tiles), JPEG tiles of quality 95.
            try ExternalTools.run(
                "/usr/bin/vips",
                ["tiffsave", tree + "/source.jpg", tree + "/image.tif", "--tile", "--pyramid", "--compression", "jpeg", "--Q", "95"])
            let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: tree + "/image.tif")[.size] as? Int)
            let folder = try TemporaryFolder()
            let stats = try view(
                "\(server.base)/logged/\(published)/image.tif",
                script: """
                    wait-idle
                    screenshot \(folder.path("fit.png"))
                    zoom-to 0.5 at 320 200
                    wait-idle
                    screenshot \(folder.path("half.png"))
                    """, folder: folder, cache: folder.path("cache"), stats: "stats.json")
            #expect(stats["remote"] as? Int == 1 && stats["tile_width"] as? Int == 128, "\(stats)")
            #expect(stats["tiles_unreadable"] as? Int == 0 && stats["script_waits_timed_out"] as? Int == 0, "\(stats)")
            #expect(stats["scale"] as? Double == 0.5 && stats["level"] as? Int == 1, "\(stats)")

            // Fitted: 640 × 384, centred (8 rows above), against vips's own resize of the source.
            let scale = min(640.0 / Double(Self.width), 400.0 / Double(Self.height))
            try ExternalTools.run("/usr/bin/vips", ["resize", tree + "/source.jpg", folder.path("fitted.png"), "\(scale)"])
            let fitted = try Picture(folder.path("fitted.png"))
            let fitPSNR = try Picture(folder.path("fit.png")).psnr(x: 0, y: 8, w: 640, h: 384, against: fitted, ox: 0, oy: 0)
            #expect(fitPSNR > 32, "PSNR \(fitPSNR) dB against vips resize")

            // At 1:2, the source's 2 × 2 means (as vips shrinks a level), cropped at the view's origin.
            try ExternalTools.run("/usr/bin/vips", ["shrink", tree + "/source.jpg", folder.path("shrunk.png"), "2", "2"])
            let x = Int((try #require(stats["origin_x"] as? Double) / 2).rounded()),
                y = Int((try #require(stats["origin_y"] as? Double) / 2).rounded())
            #expect(x == 430 && y == 250, "the view's centre stays the photo's")
            let halfPSNR = try Picture(folder.path("half.png")).psnr(
                x: 0, y: 0, w: 640, h: 400, against: try Picture(folder.path("shrunk.png")), ox: x, oy: y)
            #expect(halfPSNR > 45, "PSNR \(halfPSNR) dB against vips shrink at (\(x), \(y))")

            // Ranges only, and far from the whole file: the header and the tiles shown.
            let responses = try await loggedResponses(server, folder: published, counted: try #require(stats["network_requests"] as? Int))
            #expect(responses.allSatisfy { $0.path == "image.tif" && $0.status == 206 }, "\(responses)")
            let fetched = responses.reduce(0) { $0 + $1.bytes }
            #expect(fetched < fileBytes / 2, "\(fetched) of the file's \(fileBytes) bytes")
        }

        @Test("a URL of a TIFF that is not a tiled pyramid: a clear message and exit status 1, the file never read whole")
        func stripTIFFIsRefused() async throws {
            let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
            let published = try publishSource(server)
            defer { server.unpublish(published) }
            let tree = server.root + "/" + published
            try ExternalTools.run("/usr/bin/vips", ["tiffsave", tree + "/source.jpg", tree + "/strips.tif"])
            let folder = try TemporaryFolder()
            let url = "\(server.base)/logged/\(published)/strips.tif"
            let run = try Fic.run(["view", "photo", url, "--cache", folder.path("cache")])
            #expect(run.status == 1)
            #expect(run.stderr.contains("cannot open the remote pyramidal TIFF \(url)"), "\(run.stderr)")
            let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: tree + "/strips.tif")[.size] as? Int)
            try await waitUntil("nginx logged the header's range", timeout: .seconds(30)) {
                !loggedResponses(server, folder: published).isEmpty
            }
            #expect(loggedResponses(server, folder: published).reduce(0) { $0 + $1.bytes } < fileBytes / 10)
        }
    }
}
