import Foundation
import Testing

extension ViewTests {
    /// `fic view gallery --urls`: cells loaded from nginx through the cache's lanes.
    @Suite("network gallery", .enabled(if: ViewTestServer.shouldTest, viewServerMissing))
    struct Network {
        static let width = 640, height = 400
        /// The grid of a 100 × 100 px format in a 640 × 400 window: 5 columns from x = 54, 108 px apart.
        static let left = 54, pitch = 108, gap = 8, side = 100, columns = 5

        /// The image of `url` stored in the cache, read back with `fic get`.
        private func stored(_ url: URL, cache: String, in folder: TemporaryFolder, _ i: Int) throws -> Picture {
            let out = folder.path("stored-\(i).png")
            let get = try Fic.run(["get", "--cache", cache, "--format", "cell", "--entity", url.absoluteString, "--out", out])
            #expect(get.status == 0, "\(get.stderr)")
            return try Picture(out)
        }

        /// The cells of `shot` at scroll `offset` that are wholly visible: index and origin.
        private func wholeCells(offset: Int, count: Int) -> [(index: Int, x: Int, y: Int)] {
            (0..<count).compactMap { index in
                let x = Self.left + index % Self.columns * Self.pitch, y = Self.gap + index / Self.columns * Self.pitch - offset
                return y >= 0 && y + Self.side <= Self.height ? (index, x, y) : nil
            }
        }

        /// Whether a pixel is the placeholder's gray, and the error cell's red.
        private func isPlaceholder(_ p: (UInt8, UInt8, UInt8)) -> Bool { p == (51, 51, 51) }
        private func isError(_ p: (UInt8, UInt8, UInt8)) -> Bool { Int(p.2) > Int(p.1) + 40 && Int(p.2) > Int(p.0) + 40 }

        @Test(
            "placeholders first, then each cell shows its URL's image; a 404 becomes an error cell and the others load; scrolled-to cells were prefetched"
        )
        func placeholdersThenImages() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(ViewTestServer.shared, "FIC_REQUIRE_TEST_SERVER=1 but nginx is not running")
            let (served, names) = try server.publishPhotos()
            defer { server.unpublish(served) }
            let folder = try TemporaryFolder()
            var urls = names.map { server.url(served + "/" + $0) }
            let missing = server.url(served + "/missing.jpg")
            urls.insert(missing, at: 3)
            try ("# the network gallery test\n\n" + urls.map(\.absoluteString).joined(separator: "\n") + "\n").write(
                toFile: folder.path("urls.txt"), atomically: true, encoding: .utf8)
            let script = folder.path("network.script")
            try """
            screenshot \(folder.path("early.png"))
            wait-idle
            screenshot \(folder.path("top.png"))
            phase scrolled
            scroll 300
            wait 2
            screenshot \(folder.path("scrolled.png"))
            """.write(toFile: script, atomically: true, encoding: .utf8)
            let cache = folder.path("cache")
            let delay = 100
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--urls", folder.path("urls.txt"), "--cache", cache, "--originals", folder.path("originals"),
                    "--format", "cell:100x100:bgrx", "--fetch-delay-ms", "\(delay)", "--size", "\(Self.width)x\(Self.height)",
                    "--no-overlay", "--script", script, "--stats", folder.path("stats.json")
                ], width: Self.width, height: Self.height)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            let network = try #require(stats["network"] as? [String: Any])
            let lanes = try #require(stats["lanes"] as? [String: Any])
            #expect(network["failed"] as? Int == 1, "only the 404: \(network)")
            #expect(network["loaded"] as? Int ?? 0 >= 24, "the first screen's 25 cells but the 404 came on the fast lane: \(network)")
            #expect(network["prefetched"] as? Int ?? 0 >= 12, "the cells below were prefetched: \(network)")
            #expect(lanes["fast_running_max"] as? Int ?? 0 >= 2 && lanes["slow_queued_max"] as? Int ?? 0 >= 1, "\(lanes)")
            #expect(stats["placeholder_cells"] as? Int ?? 0 >= 20)
            #expect(
                stats["compose_max_ms"] as? Double ?? .infinity < Double(delay) * 2 / 3,
                "the frame path never waits for a fetch (each delayed \(delay) ms)")
            let phases = try #require(stats["by_phase"] as? [String: Any])
            let scrolled = try #require(phases["scrolled"] as? [String: Any])
            #expect(scrolled["misses"] as? Int == 0, "the cells scrolled to were prefetched: \(scrolled)")
            #expect(scrolled["hits"] as? Int ?? 0 >= 10)
            let originals = try FileManager.default.contentsOfDirectory(atPath: folder.path("originals"))
            #expect(originals.count >= 36, "the originals were kept: \(originals.count) files")

            // Early: every cell is a placeholder. Later: every cell equals its URL's stored image.
            let early = try Picture(folder.path("early.png"))
            for cell in wholeCells(offset: 0, count: urls.count) {
                #expect(
                    isPlaceholder(early.bgr(cell.x + Self.side / 2, cell.y + Self.side / 2)),
                    "cell \(cell.index) was not a placeholder at first")
            }
            var pictures: [Int: Picture] = [:]
            for (offset, shot) in [(0, "top.png"), (300, "scrolled.png")] {
                let picture = try Picture(folder.path(shot))
                let cells = wholeCells(offset: offset, count: urls.count)
                #expect(cells.count >= 10)
                for cell in cells {
                    if cell.index == 3 {
                        #expect(isError(picture.bgr(cell.x + Self.side / 2, cell.y + Self.side / 2)), "the 404's cell is an error cell")
                        continue
                    }
                    if pictures[cell.index] == nil {
                        pictures[cell.index] = try stored(urls[cell.index], cache: cache, in: folder, cell.index)
                    }
                    let expected = try #require(pictures[cell.index])
                    #expect(
                        picture.differences(x: cell.x, y: cell.y, w: Self.side, h: Self.side, from: expected, ox: 0, oy: 0) == 0,
                        "\(shot): cell \(cell.index) differs from \(urls[cell.index].lastPathComponent)")
                }
            }
            // The cells differ from each other (distinct photos, not one image everywhere).
            #expect(Set(pictures.values.map { "\($0.bgr(50, 50))\($0.bgr(20, 80))" }).count >= pictures.count - 2)
        }

        @Test(
            "a fast fling through 600 URLs: cells scrolled past are demoted and cancelled, most never loaded, and the screen where it stops fills in"
        )
        func flingDemotesAndCancels() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(ViewTestServer.shared, "FIC_REQUIRE_TEST_SERVER=1 but nginx is not running")
            let (served, names) = try server.publishPhotos()
            defer { server.unpublish(served) }
            let folder = try TemporaryFolder()
            // 600 URLs: each photo under many query strings (nginx serves the file, the cache sees another URL).
            let urls = (0..<600).map { URL(string: server.url(served + "/" + names[$0 % names.count]).absoluteString + "?n=\($0)")! }
            try urls.map(\.absoluteString).joined(separator: "\n").write(toFile: folder.path("urls.txt"), atomically: true, encoding: .utf8)
            let script = folder.path("fling.script")
            try "wait 3\nfling 12000\nwait 400   # unpaced: the fling ends within a second\nwait-idle\n".write(
                toFile: script, atomically: true, encoding: .utf8)
            let cache = folder.path("cache")
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--urls", folder.path("urls.txt"), "--cache", cache, "--format", "cell:100x100:bgrx",
                    "--fetch-delay-ms", "20", "--size", "\(Self.width)x\(Self.height)", "--no-overlay", "--script", script,
                    "--screenshot", folder.path("end.png"), "--stats", folder.path("stats.json")
                ], width: Self.width, height: Self.height)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            let network = try #require(stats["network"] as? [String: Any])
            let lanes = try #require(stats["lanes"] as? [String: Any])
            let offset = try #require(stats["scroll_offset"] as? Int)
            #expect(offset > 3000, "the fling went far: \(offset)")
            #expect(network["demoted"] as? Int ?? 0 > 0, "cells that scrolled off were demoted: \(network)")
            #expect(network["cancelled"] as? Int ?? 0 > 0, "cells left behind were cancelled: \(network)")
            #expect(network["stored_images"] as? Int ?? .max < 300, "most cells flung past were never loaded: \(network)")
            #expect(network["failed"] as? Int == 0, "\(network)")
            #expect(lanes["fast_queued_max"] as? Int ?? 0 > 0, "more visible cells than fast fetch slots: \(lanes)")
            #expect(lanes["demotions"] as? Int ?? 0 > 0, "the cache moved demoted requests to the slow lane: \(lanes)")
            let shot = try Picture(folder.path("end.png"))
            let cells = wholeCells(offset: offset, count: urls.count)
            #expect(cells.count >= 10)
            for cell in cells {
                let expected = try stored(urls[cell.index], cache: cache, in: folder, cell.index)
                #expect(
                    shot.differences(x: cell.x, y: cell.y, w: Self.side, h: Self.side, from: expected, ox: 0, oy: 0) == 0,
                    "cell \(cell.index) differs")
            }
        }
    }
}

extension ViewTests {
    /// `fic view gallery --urls` without the test server: file URLs, and the list's errors.
    @Suite("network gallery, file URLs and the list")
    struct NetworkList {
        @Test("file URLs load through the same lanes; a missing file is an error cell, the others fill in; wait-idle ends")
        func fileURLs() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let photos = ["astronaut.jpg", "coffee.jpg", "rocket.jpg"].map {
                URL(fileURLWithPath: Fic.testdata + "/photos/" + $0).absoluteString
            }
            let list = [
                "  # a comment, then a blank line", "", photos[0], URL(fileURLWithPath: folder.path("missing.jpg")).absoluteString,
                photos[1], photos[2] + "   "
            ]
            try list.joined(separator: "\n").write(toFile: folder.path("urls.txt"), atomically: true, encoding: .utf8)
            try "wait-idle\n".write(toFile: folder.path("idle.script"), atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--urls", folder.path("urls.txt"), "--size", "640x400", "--no-overlay",
                    "--script", folder.path("idle.script"), "--screenshot", folder.path("shot.png"), "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["frames"] as? Int ?? .max < 600, "wait-idle ended once the requests had")
            let network = try #require(stats["network"] as? [String: Any])
            #expect(network["photos"] as? Int == 4 && network["failed"] as? Int == 1 && network["loaded"] as? Int == 3, "\(network)")
            #expect((network["last_error"] as? String ?? "").contains("missing.jpg"))
            // thumb: 150 px cells, 4 columns from x = 8.
            let shot = try Picture(folder.path("shot.png"))
            let centre = { (i: Int) in shot.bgr(8 + i * 158 + 75, 8 + 75) }
            let error = centre(1)
            #expect(Int(error.2) > Int(error.1) + 40, "the missing file's cell is an error cell: \(error)")
            for i in [0, 2, 3] { #expect(centre(i) != (51, 51, 51) && centre(i) != error, "cell \(i) filled in") }
            #expect(centre(0) != centre(2) && centre(2) != centre(3))
        }

        @Test("the URL list's errors name the line; a list without URLs and options that do not go together are refused")
        func listErrors() throws {
            let folder = try TemporaryFolder()
            try "http://example.com/a.jpg\n\nftp://example.com/b.jpg\n".write(
                toFile: folder.path("bad.txt"), atomically: true, encoding: .utf8)
            let bad = try Fic.run(["view", "gallery", "--urls", folder.path("bad.txt")])
            #expect(bad.status == 2 && bad.stderr.contains("line 3") && bad.stderr.contains("ftp"), "\(bad.stderr)")
            try "# only a comment\n\n".write(toFile: folder.path("empty.txt"), atomically: true, encoding: .utf8)
            let empty = try Fic.run(["view", "gallery", "--urls", folder.path("empty.txt")])
            #expect(empty.status == 2 && empty.stderr.contains("holds no URL"), "\(empty.stderr)")
            let originals = try Fic.run(["view", "gallery", "--originals", folder.path("o")])
            #expect(originals.status == 2 && originals.stderr.contains("--originals goes with --urls"), "\(originals.stderr)")
            let both = try Fic.run(["view", "gallery", "--urls", folder.path("bad.txt"), "--photos", folder.path("p")])
            #expect(both.status == 2, "\(both.stderr)")
        }
    }
}
