@testable import FICCommandLine
import FastImageCache
@testable import fic
import Foundation
import ImageCodec
import Testing

@Suite("ingest, get and inspect")
struct IngestTests {
    static let formats = ["--format", "thumb:75x75@2:rgb565:max=500", "--format", "card:40x30@3:bgrx:max=500", "--family", "photos"]

    @Test("ingesting photos, jpeg, png, webp and bad refuses each bad file with its reason, exits 1, and keeps the good ones")
    func ingestMixed() throws {
        let folder = try TemporaryFolder()
        let source = try folder.linkTestdata(["photos", "jpeg", "png", "webp", "bad"], into: "source")
        let cache = folder.path("cache")
        let run = try Fic.run(["ingest", source, "--cache", cache] + Self.formats)
        #expect(run.status == 1, "\(run.stderr)")
        let bad = badFiles
        #expect(bad.count >= 10)
        for file in bad {
            let line = run.stderr.split(separator: "\n").first { $0.contains("bad/\(file):") }
            #expect(line != nil, "bad/\(file) is not named on stderr")
            #expect((line?.count ?? 0) > "fic: refused bad/\(file): ".count + 10, "no reason for \(file)")
        }
        #expect(run.stderr.contains("refused bad/empty.jpg: The input is empty"))
        #expect(run.stderr.contains("refused bad/unsupported.bmp:") && run.stderr.contains("BMP"))
        #expect(!run.stderr.contains("refused bad/unsupported.gif"), "a GIF is decoded: \(run.stderr)")
        #expect(!run.stderr.contains("photos/"), "a good file was refused: \(run.stderr)")
        #expect(run.stdout.contains("\(bad.count) refused"), "\(run.stdout)")

        // Good files of every kind are there afterwards, at the format's pixel size.
        for (entity, format, width, height) in [
            ("photos/chelsea.jpg", "thumb", 150, 150), ("jpeg/coffee-progressive.jpg", "card", 120, 90),
            ("png/astronaut-rgba.png", "thumb", 150, 150), ("webp/" + (try firstFile(in: "webp")), "card", 120, 90)
        ] {
            let out = folder.path("\(format)-\(entity.replacingOccurrences(of: "/", with: "_")).png")
            let get = try Fic.run(["get", "--cache", cache, "--format", format, "--entity", entity, "--out", out])
            #expect(get.status == 0, "\(entity): \(get.stderr)")
            let info = try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: out)))
            #expect(info.format == .png)
            #expect(info.width == width && info.height == height, "\(entity) in \(format): \(info.width)×\(info.height)")
        }
        // Only links to files were made, so jpeg/orientation/ is not there; nor is a refused file.
        let notLinked = try Fic.run([
            "get", "--cache", cache, "--format", "thumb", "--entity", "jpeg/orientation/chelsea-orientation-6.jpg", "--out",
            folder.path("y.png")
        ])
        #expect(notLinked.status == 1)
        let absent = try Fic.run(["get", "--cache", cache, "--format", "thumb", "--entity", "bad/empty.jpg", "--out", folder.path("x.png")])
        #expect(absent.status == 1)
        #expect(absent.stderr.contains("no image of 'bad/empty.jpg'"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("x.png")))
    }

    private func firstFile(in sub: String) throws -> String {
        try #require(try FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/" + sub).sorted().first)
    }

    @Test("a clean folder ingests with exit 0; ingesting again changes nothing")
    func ingestClean() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path("cache")
        let first = try Fic.run(["ingest", Fic.testdata + "/photos", "--cache", cache] + Self.formats)
        #expect(first.status == 0, "\(first.stderr)")
        let count = try FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/photos").count
        #expect(first.stdout.contains("\(count) added"), "\(first.stdout)")
        #expect(first.stdout.split(separator: "\n").count == 1, "not a one-line summary: \(first.stdout)")
        #expect(FileManager.default.fileExists(atPath: cache + "/default.formats.json"))
        // Without --format, the stored formats are used.
        let second = try Fic.run(["ingest", Fic.testdata + "/photos", "--cache", cache])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("0 added, \(count) unchanged"), "\(second.stdout)")
    }

    @Test("inspect --json has every format's counts; the table shows them too")
    func inspect() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path("cache")
        let ingest = try Fic.run(["ingest", Fic.testdata + "/photos", "--cache", cache, "--namespace", "ns1"] + Self.formats)
        #expect(ingest.status == 0)
        let count = try FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/photos").count

        let run = try Fic.run(["inspect", "--cache", cache, "--namespace", "ns1", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let formats = try #require(json["formats"] as? [[String: Any]])
        #expect(formats.map { $0["name"] as? String } == ["thumb", "card"])
        for format in formats {
            #expect(format["count"] as? Int == count)
            #expect(format["maximumCount"] as? Int == 500)
            #expect((format["diskBytes"] as? Int ?? 0) > 0)
        }
        #expect(formats[0]["style"] as? String == "rgb565")
        #expect(formats[1]["pixelWidth"] as? Int == 120 && formats[1]["pixelHeight"] as? Int == 90)
        #expect(json["totalCount"] as? Int == 2 * count)

        let table = try Fic.run(["inspect", "--cache", cache, "--namespace", "ns1"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("\(count)/500"))
        #expect(table.stdout.contains("rgb565"))
        // Another namespace of the same folder is a different (absent) cache. (`--cache` alone
        // would show ns1, the folder's only namespace: NamespaceChoiceTests.)
        #expect(try Fic.run(["inspect", "--cache", cache, "--namespace", "ns2"]).status == 1)
    }

    @Test("inspect shows the other processes that have a format's table open")
    func inspectShowsWhoHasTheCacheOpen() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path("cache")
        #expect(try Fic.run(["ingest", Fic.testdata + "/photos", "--cache", cache, "--namespace", "ns1"] + Self.formats).status == 0)
        func openIn(_ run: FicRun) throws -> [[Int]] {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            return try #require(json["formats"] as? [[String: Any]]).map { ($0["openIn"] as? [Int]) ?? [-1] }
        }
        #expect(try openIn(Fic.run(["inspect", "--cache", cache, "--namespace", "ns1", "--json"])) == [[], []], "nobody else")
        // This process opens the cache as fic does, and keeps it open while fic inspects it.
        let (open, _) = try CacheLocation(directory: cache, namespace: "ns1", followLinks: false).openExisting(readOnly: false)
        defer { open.close() }
        let pid = Int(getpid())
        #expect(try openIn(Fic.run(["inspect", "--cache", cache, "--namespace", "ns1", "--json"])) == [[pid], [pid]])
        #expect(try Fic.run(["inspect", "--cache", cache, "--namespace", "ns1"]).stdout.contains("pid \(pid)"))
    }
}
