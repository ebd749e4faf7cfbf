@testable import FICCommandLine
@testable import FICDemo
import FICHarness
import FICTestSupport
import FastImageCache
import Foundation
import Testing
@testable import fic

extension ViewTests {
    /// The gallery's cache kept between launches in the default cache folder (a temporary
    /// `XDG_CACHE_HOME` here): the second launch shows every visible cell from its first frame.
    @Suite("gallery remembers")
    struct Remembers {
        static let width = 640, height = 400

        /// A folder of the test photos (links to the shared test data) and a cache home.
        struct Setup {
            let folder: TemporaryFolder
            let photos: String
            let environment: [String: String]

            init() throws {
                folder = try TemporaryFolder()
                photos = try folder.linkTestdata(["photos"], into: "p") + "/photos"
                environment = ["XDG_CACHE_HOME": folder.path("xdg")]
            }

            /// The default cache folder.
            var cacheFolder: String { folder.path("xdg") + "/fic" }
        }

        /// Plays `script` in the gallery of `photos` (overlay off) with `extra` arguments; returns
        /// the run and its statistics.
        static func gallery(
            _ photos: String, script: String, in folder: TemporaryFolder, name: String, environment: [String: String],
            extra: [String] = []
        ) throws -> (run: FicRun, stats: [String: Any]) {
            let scriptPath = folder.path("\(name).script"), statsPath = folder.path("\(name).json")
            try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--photos", photos, "--size", "\(width)x\(height)", "--no-overlay",
                    "--script", scriptPath, "--stats", statsPath
                ] + extra, width: width, height: height, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            return (run, try ViewRunner.stats(statsPath))
        }

        /// Waits until every file under `folder` was last changed longer ago than the memo's racy
        /// window, so that a launch now remembers each (files just written are hashed again).
        static func waitUntilSettled(_ folder: String) async throws {
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).map { folder + "/" + $0 }
            try await waitUntil("the photos are older than the memo's racy window") {
                let newest = files.compactMap { SourceMemo.Identity(path: $0) }.map { max($0.mtimeNs, $0.ctimeNs) }.max() ?? 0
                return newest < SourceMemo.now - SourceMemo.racyNanoseconds - 500_000_000
            }
        }

        /// The top-left corner of cell `index` and its side, from a run's layout.
        static func cell(_ index: Int, _ stats: [String: Any]) throws -> (x: Int, y: Int, side: Int) {
            let layout = try #require(stats["layout"] as? [String: Any])
            let columns = try #require(layout["columns"] as? Int), left = try #require(layout["left"] as? Int)
            let gap = try #require(layout["gap"] as? Int), side = try #require(layout["cell_width"] as? Int)
            return (left + index % columns * (side + gap), gap + index / columns * (side + gap), side)
        }

        @Test("launched twice on a folder: the second launch shows every visible cell from its first frame, with nothing decoded")
        func secondLaunch() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let setup = try Setup()
            try await Self.waitUntilSettled(setup.photos)
            let folder = setup.folder
            let first = try Self.gallery(
                setup.photos, script: "wait-idle\nscreenshot \(folder.path("first.png"))\n", in: folder, name: "first",
                environment: setup.environment)
            let photoCount = try FileManager.default.contentsOfDirectory(atPath: setup.photos).count
            #expect(first.stats["cache_decodes"] as? Int == photoCount, "the first launch decodes every photo once")
            #expect(first.stats["cache_temporary"] as? Bool == false)
            #expect((first.stats["misses"] as? Int ?? 0) > 0, "the first frame came before the ingest")

            // The tables live in the folder's namespace of $XDG_CACHE_HOME/fic.
            let namespace = try #require(first.stats["cache_namespace"] as? String)
            #expect(first.stats["cache_directory"] as? String == setup.cacheFolder)
            #expect(namespace == (try DefaultCache.namespace(forPhotos: setup.photos)))
            for table in ["thumb", "medium"] {
                #expect(FileManager.default.fileExists(atPath: setup.cacheFolder + "/\(namespace)/\(table).fictable"))
            }
            #expect(FileManager.default.fileExists(atPath: setup.cacheFolder + "/\(namespace).sources.json"))

            // The second launch: its first frame is screenshot before anything else happens.
            let second = try Self.gallery(
                setup.photos,
                script:
                    "screenshot \(folder.path("second.png"))\nwait-idle\ntoggle-path\nwait-idle\nscreenshot \(folder.path("conventional.png"))\n",
                in: folder, name: "second", environment: setup.environment)
            #expect(second.stats["script_waits_timed_out"] as? Int == 0)
            #expect(second.stats["path"] as? String == "conventional", "the conventional path's thumbnails were made")
            #expect(second.stats["misses"] as? Int == 0)
            #expect(second.stats["placeholder_cells"] as? Int == 0)
            #expect(second.stats["placeholder_cell_frames"] as? Int == 0)
            #expect(second.stats["cache_decodes"] as? Int == 0)
            let byPath = try #require(second.stats["by_path"] as? [String: [String: Int]])
            #expect(byPath["cache"]?["hits"] == photoCount, "every photo's cell is on screen")
            let a = try Picture(folder.path("first.png")), b = try Picture(folder.path("second.png")),
                conventional = try Picture(folder.path("conventional.png"))
            #expect(
                b.differences(x: 0, y: 0, w: Self.width, h: Self.height, from: a, ox: 0, oy: 0) == 0,
                "the first frame equals the first launch's loaded window")

            // The cells are the cache's images, as `fic get` reads them back (the namespace chosen by the photo folder).
            let names = try FileManager.default.contentsOfDirectory(atPath: setup.photos).sorted()
            for (index, name) in names.enumerated() {
                let out = folder.path("get-\(index).png")
                let get = try Fic.run(
                    ["get", "--photos", setup.photos, "--format", "thumb", "--entity", name, "--out", out], environment: setup.environment)
                #expect(get.status == 0, "\(get.stderr)")
                let expected = try Picture(out)
                let cell = try Self.cell(index, second.stats)
                let visible = min(cell.side, Self.height - cell.y)
                guard visible > 0 else { continue }
                // RGB565 widened to 8 bits by cairo in the window and by the PNG writer may differ in the low bits.
                #expect(
                    b.differences(x: cell.x, y: cell.y, w: cell.side, h: visible, from: expected, ox: 0, oy: 0, tolerance: 7) == 0,
                    "\(name)")
                // The conventional path shows the same photos, through JPEG (made from the cache's images: nothing decoded above).
                let psnr = conventional.psnr(x: cell.x, y: cell.y, w: cell.side, h: visible, against: expected, ox: 0, oy: 0)
                #expect(psnr > 28, "conventional \(name): \(psnr) dB")
            }
        }

        @Test("a photo changed between launches shows its new picture; a removed one is gone, with its images")
        func changedAndRemoved() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            for (source, name) in [("astronaut", "a"), ("chelsea", "b"), ("coffee", "c"), ("rocket", "d")] {
                try folder.copyTestdata("photos/\(source).jpg", into: "photos", as: "\(name).jpg")
            }
            let photos = folder.path("photos"), environment = ["XDG_CACHE_HOME": folder.path("xdg")]
            let first = try Self.gallery(
                photos, script: "wait-idle\nscreenshot \(folder.path("one.png"))\n", in: folder, name: "one", environment: environment)
            #expect(first.stats["cache_decodes"] as? Int == 4)

            // b.jpg gets d.jpg's bytes; a.jpg goes.
            try FileManager.default.removeItem(atPath: photos + "/b.jpg")
            try FileManager.default.copyItem(atPath: photos + "/d.jpg", toPath: photos + "/b.jpg")
            try FileManager.default.removeItem(atPath: photos + "/a.jpg")

            let second = try Self.gallery(
                photos, script: "wait-idle\nscreenshot \(folder.path("two.png"))\n", in: folder, name: "two", environment: environment)
            let layout = try #require(second.stats["layout"] as? [String: Any])
            #expect(layout["cells"] as? Int == 3, "b, c and d")
            #expect(second.stats["cache_decodes"] as? Int == 1, "only the changed photo is decoded")
            let one = try Picture(folder.path("one.png")), two = try Picture(folder.path("two.png"))
            let side = try Self.cell(0, second.stats).side
            func differences(_ a: Picture, _ i: Int, _ b: Picture, _ j: Int, _ statsA: [String: Any], _ statsB: [String: Any]) throws -> Int
            {
                let p = try Self.cell(i, statsA), q = try Self.cell(j, statsB)
                return a.differences(x: p.x, y: p.y, w: side, h: side, from: b, ox: q.x, oy: q.y)
            }
            #expect(try differences(two, 0, two, 2, second.stats, second.stats) == 0, "b.jpg now shows d.jpg's picture")
            #expect(try differences(two, 0, one, 1, second.stats, first.stats) > 0, "not b.jpg's old picture")
            #expect(try differences(two, 1, one, 2, second.stats, first.stats) == 0, "c.jpg unchanged")
            #expect(try differences(two, 2, one, 3, second.stats, first.stats) == 0, "d.jpg unchanged")

            // The removed photo's images were deleted from the folder's namespace.
            let get = try Fic.run(
                ["get", "--photos", photos, "--format", "thumb", "--entity", "a.jpg", "--out", folder.path("a.png")],
                environment: environment)
            #expect(get.status == 1, "\(get.stdout)")
            let kept = try Fic.run(
                ["get", "--photos", photos, "--format", "thumb", "--entity", "c.jpg", "--out", folder.path("c.png")],
                environment: environment)
            #expect(kept.status == 0, "\(kept.stderr)")
        }

        @Test("a memo whose versions were swapped between photos never shows a wrong picture")
        func swappedMemo() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let setup = try Setup()
            let folder = setup.folder
            let first = try Self.gallery(
                setup.photos, script: "wait-idle\nscreenshot \(folder.path("first.png"))\n", in: folder, name: "first",
                environment: setup.environment)
            let namespace = try #require(first.stats["cache_namespace"] as? String)
            let path = setup.cacheFolder + "/\(namespace).sources.json"
            var memo = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            var sources = try #require(memo["sources"] as? [String: [String: Any]])
            try #require(sources.count >= 2, "the shared test photos are old enough to be remembered")
            let names = sources.keys.sorted()
            let hashes = names.map { sources[$0]?["sha256"] }
            for (index, name) in names.enumerated() { sources[name]?["sha256"] = hashes[(index + 1) % names.count] }
            memo["sources"] = sources
            try JSONSerialization.data(withJSONObject: memo).write(to: URL(fileURLWithPath: path))

            let second = try Self.gallery(
                setup.photos, script: "wait-idle\nscreenshot \(folder.path("second.png"))\n", in: folder, name: "second",
                environment: setup.environment)
            #expect(second.stats["cache_decodes"] as? Int == 0, "read and hashed again, found stored")
            let a = try Picture(folder.path("first.png")), b = try Picture(folder.path("second.png"))
            #expect(b.differences(x: 0, y: 0, w: Self.width, h: Self.height, from: a, ox: 0, oy: 0) == 0)
        }

        @Test("a second window on a folder whose cache is open shares it: it decodes nothing the first stored, and shows the same pictures")
        func secondWindow() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let setup = try Setup()
            let folder = setup.folder
            let binary = try #require(Fic.binary)
            // The first window stays open until the test lets it go, after the second has closed.
            try "wait-idle\nscreenshot \(folder.path("first.png"))\nwait-file \(folder.path("release")) 36000\n".write(
                toFile: folder.path("first.script"), atomically: true, encoding: .utf8)
            let first = try ChildProcess.startCapturing(
                "/usr/bin/xvfb-run",
                ViewRunner.xvfbArguments(width: Self.width, height: Self.height) + [
                    binary, "view", "gallery", "--photos", setup.photos, "--size", "\(Self.width)x\(Self.height)", "--no-overlay",
                    "--script", folder.path("first.script"), "--stats", folder.path("first.json")
                ], environment: ProcessInfo.processInfo.environment.merging(setup.environment) { $1 })
            defer { first.stop() }
            try await waitUntil("the first window has shown its photos", timeout: .seconds(120)) {
                FileManager.default.fileExists(atPath: folder.path("first.png")) || !first.isRunning
            }
            try #require(first.isRunning, "the first window closed early: \(first.result().stderr)")

            let second = try Self.gallery(
                setup.photos, script: "wait-idle\nscreenshot \(folder.path("second.png"))\n", in: folder, name: "second",
                environment: setup.environment)
            #expect(!second.run.stderr.contains(GalleryCache.inUseNotice), "\(second.run.stderr)")
            #expect(second.stats["cache_temporary"] as? Bool != true)
            #expect(second.stats["cache_decodes"] as? Int == 0, "every picture came from what the first window stored")
            let a = try Picture(folder.path("first.png")), b = try Picture(folder.path("second.png"))
            #expect(b.differences(x: 0, y: 0, w: Self.width, h: Self.height, from: a, ox: 0, oy: 0) == 0, "the same pictures")

            #expect(FileManager.default.createFile(atPath: folder.path("release"), contents: nil))
            try await waitUntil("the first window has closed", timeout: .seconds(120)) { !first.isRunning }
            #expect(first.result().status == 0, "\(first.result().stderr)")
            let firstStats = try ViewRunner.stats(folder.path("first.json"))
            #expect(firstStats["script_waits_timed_out"] as? Int == 0, "the first window was open until the second had closed")
            #expect(firstStats["cache_temporary"] as? Bool == false)
        }

        @Test("fic ingest DIR then fic view gallery --photos DIR share one namespace: the gallery decodes nothing")
        func ingestThenView() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let setup = try Setup()
            let ingest = try Fic.run(["ingest", setup.photos], environment: setup.environment)
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let namespace = try DefaultCache.namespace(forPhotos: setup.photos)
            #expect(ingest.stdout.contains(setup.cacheFolder + "/" + namespace), "\(ingest.stdout)")
            let view = try Self.gallery(setup.photos, script: "wait-idle\n", in: setup.folder, name: "view", environment: setup.environment)
            #expect(view.stats["cache_namespace"] as? String == namespace)
            #expect(view.stats["cache_decodes"] as? Int == 0)
            #expect(view.stats["misses"] as? Int == 0, "every photo known from the first frame")
        }

        @Test(
            "fic ingest run while fic view gallery fills the same cache: every photo is decoded once between them, and the gallery shows them all"
        )
        func ingestBesideView() async throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let setup = try Setup()
            let folder = setup.folder
            // Four names for each test photo: 28 photos, so that the two meet.
            let photos = folder.path("many")
            try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
            let originals = try FileManager.default.contentsOfDirectory(atPath: setup.photos).sorted()
            for round in 0..<4 {
                for name in originals {
                    try FileManager.default.createSymbolicLink(
                        atPath: "\(photos)/\(round)-\(name)", withDestinationPath: "\(setup.photos)/\(name)")
                }
            }
            let total = originals.count * 4
            let binary = try #require(Fic.binary)
            try "wait-file \(folder.path("ingested")) 36000\nwait-idle\n".write(
                toFile: folder.path("view.script"), atomically: true, encoding: .utf8)
            let view = try ChildProcess.startCapturing(
                "/usr/bin/xvfb-run",
                ViewRunner.xvfbArguments(width: Self.width, height: Self.height) + [
                    binary, "view", "gallery", "--photos", photos, "--size", "\(Self.width)x\(Self.height)", "--no-overlay",
                    "--script", folder.path("view.script"), "--stats", folder.path("view.json")
                ], environment: ProcessInfo.processInfo.environment.merging(setup.environment) { $1 })
            defer { view.stop() }
            // The gallery has its cache open (and is storing photos) once its tables exist.
            let namespace = setup.cacheFolder + "/" + (try DefaultCache.namespace(forPhotos: photos))
            try await waitUntil("the gallery has opened its cache", timeout: .seconds(120)) {
                ((try? FileManager.default.contentsOfDirectory(atPath: namespace)) ?? []).contains { $0.hasSuffix(".fictable") }
                    || !view.isRunning
            }
            try #require(view.isRunning, "the gallery closed early: \(view.result().stderr)")
            let ingest = try Fic.run(["ingest", photos], environment: setup.environment)
            #expect(ingest.status == 0, "\(ingest.stderr)")
            #expect(FileManager.default.createFile(atPath: folder.path("ingested"), contents: nil))
            try await waitUntil("the gallery has closed", timeout: .seconds(300)) { !view.isRunning }
            #expect(view.result().status == 0, "\(view.result().stderr)")

            let stats = try ViewRunner.stats(folder.path("view.json"))
            let added = try #require(ingest.stdout.firstMatch(of: /(\d+) added, (\d+) unchanged, 0 refused/), "\(ingest.stdout)")
            let decodes = try #require(stats["cache_decodes"] as? Int)
            #expect(Int(added.1)! + Int(added.2)! == total, "\(ingest.stdout)")
            #expect(decodes + Int(added.1)! == total, "each photo decoded once: \(decodes) by the gallery, \(added.1) by the ingest")
            #expect(stats["cache_temporary"] as? Bool == false)
            #expect(stats["cache_stores_made_by_others"] is Int)
        }

        @Test("the cache folder is trimmed to --cache-limit: least recently used first, never one in use, never what is not the package's")
        func trim() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let environment = ["XDG_CACHE_HOME": folder.path("xdg")]
            let cacheFolder = folder.path("xdg") + "/fic"
            var namespaces: [String] = []
            for k in 1...5 {
                try folder.copyTestdata("photos/chelsea.jpg", into: "f\(k)", as: "a.jpg")
                try folder.copyTestdata("photos/coffee.jpg", into: "f\(k)", as: "b.jpg")
                namespaces.append(try DefaultCache.namespace(forPhotos: folder.path("f\(k)")))
            }
            for k in 1...4 {
                let ingest = try Fic.run(["ingest", folder.path("f\(k)")], environment: environment)
                #expect(ingest.status == 0, "\(ingest.stderr)")
            }
            // Things that are not the package's, in the namespace that goes first.
            let oldest = cacheFolder + "/" + namespaces[0]
            try Data("notes".utf8).write(to: URL(fileURLWithPath: oldest + "/notes.txt"))
            try FileManager.default.createDirectory(atPath: oldest + "/sub", withIntermediateDirectories: true)
            try Data("kept".utf8).write(to: URL(fileURLWithPath: oldest + "/sub/x.fictable"))
            try Data("not a table".utf8).write(to: URL(fileURLWithPath: oldest + "/fake.fictable"))
            try FileManager.default.createSymbolicLink(atPath: oldest + "/link.fictable", withDestinationPath: folder.path("f1/a.jpg"))
            // Last uses: f1 oldest … f4 newest; f5 is opened by the gallery below.
            for k in 1...4 {
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -Double(50 - 10 * k) * 86_400)],
                    ofItemAtPath: cacheFolder + "/" + namespaces[k - 1])
            }
            let listed = try CacheDirectory(path: cacheFolder).namespaces()
            try #require(listed.map(\.name) == Array(namespaces[0..<4]), "least recently used first")
            let sizes = listed.map(\.diskBytes)
            try #require(Set(sizes).count == 1, "\(sizes)")
            let size = sizes[0]
            // f2's namespace is open (read-only, so its last use stays) by a live cache in this process.
            let open = try ImageCache(
                directory: cacheFolder, namespace: namespaces[1], formats: try DemoFormats.make(count: 2),
                options: TableOpenOptions(readOnly: true))
            defer { open.close() }

            // Five namespaces of `size`; the limit fits three and a half: f1 goes, f2 is in use, f3 goes.
            let limit = Double(size) * 3.5 / 1_048_576
            let view = try Self.gallery(
                folder.path("f5"), script: "wait-idle\n", in: folder, name: "view", environment: environment,
                extra: ["--cache-limit", "\(limit)"])
            #expect(view.run.stderr.contains("removed the 2 least recently used namespaces"), "\(view.run.stderr)")
            let left = try CacheDirectory(path: cacheFolder).namespaces().map(\.name)
            #expect(Set(left) == Set([namespaces[1], namespaces[3], namespaces[4]]), "\(left)")
            #expect(!FileManager.default.fileExists(atPath: cacheFolder + "/" + namespaces[2]), "f3's folder went with its tables")
            for gone in [namespaces[0], namespaces[2]] {
                #expect(!FileManager.default.fileExists(atPath: cacheFolder + "/\(gone).formats.json"))
                #expect(!FileManager.default.fileExists(atPath: cacheFolder + "/\(gone).sources.json"))
            }
            for kept in ["notes.txt", "sub/x.fictable", "fake.fictable"] {
                #expect(FileManager.default.fileExists(atPath: oldest + "/" + kept), "\(kept) stays")
            }
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: oldest + "/link.fictable")) != nil, "the link stays")
            #expect(FileManager.default.fileExists(atPath: folder.path("f1/a.jpg")), "its target too")
            #expect(!FileManager.default.fileExists(atPath: oldest + "/thumb.fictable"))
            #expect(open.cachedImage(entityID: "a.jpg", format: "thumb") != nil, "the open cache still has its images")

            // The listing of the default folder names each namespace's photo folder.
            let list = try Fic.run(["inspect", "--json"], environment: environment)
            #expect(list.status == 0, "\(list.stderr)")
            let listing = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
            let entries = try #require(listing["namespaces"] as? [[String: Any]])
            #expect(Set(entries.compactMap { $0["namespace"] as? String }) == Set(left))
            let f5 = try DefaultCache.realPath(folder.path("f5"))
            #expect(entries.contains { $0["photos"] as? String == f5 })
        }

        @Test("a namespace of other formats is not replaced by the gallery: it says what to do")
        func otherFormats() throws {
            let setup = try Setup()
            let ingest = try Fic.run(["ingest", setup.photos, "--format", "cell:100x100:bgrx"], environment: setup.environment)
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let view = try Fic.run(["view", "gallery", "--photos", setup.photos], environment: setup.environment)
            #expect(view.status == 1)
            #expect(view.stderr.contains("formats other than the viewer's") && view.stderr.contains("--temporary"), "\(view.stderr)")
            let inspect = try Fic.run(["inspect", "--photos", setup.photos], environment: setup.environment)
            #expect(inspect.stdout.contains("cell"), "the stored formats are untouched: \(inspect.stdout)")
        }
    }
}
