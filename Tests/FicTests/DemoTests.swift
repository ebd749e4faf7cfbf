import FastImageCache
import Foundation
import ImageCodec
import Testing

@Suite("demo")
struct DemoTests {
    /// A demo that never ended would meet the time limit (how long it takes is the machine's).
    @Test("demo --cells 200 scrolls both ways, prints the figures and writes the first screen", .timeLimit(.minutes(5)))
    func demo() throws {
        let folder = try TemporaryFolder()
        let out = folder.path("demo")
        let run = try Fic.run(["demo", "--cells", "200", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        for label in [
            "frames per second", "frames over 16.7 ms", "frames over 8.3 ms", "disk used", "private dirty memory", "file-backed resident",
            "speed:"
        ] {
            #expect(run.stdout.contains(label), "missing \(label)")
        }
        // Both runs fetched an image for each of the 200 cells and none was missing.
        let fetched = run.stdout.split(separator: "\n").first { $0.contains("images fetched") }
        #expect(fetched?.split(separator: " ", omittingEmptySubsequences: true).filter { $0 == "200" }.count == 2, "\(fetched ?? "")")
        #expect(!run.stdout.contains("missing)"))

        let screen = try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: out + "/first-screen.png")))
        #expect(screen.width == 600 && screen.height == 900)
        let sheet = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: out + "/medium-sheet.png")))
        #expect(sheet.width > 300)
        // The sheet's top-left medium image has a rounded corner: its corner pixel shows the background.
        let corner = sheet.baseAddress.load(fromByteOffset: 20 * sheet.bytesPerRow + 20 * 4, as: UInt32.self)
        let inside = sheet.baseAddress.load(fromByteOffset: 170 * sheet.bytesPerRow + 170 * 4, as: UInt32.self)
        let background = sheet.baseAddress.load(as: UInt32.self)
        #expect(corner == background)
        #expect(inside != background)
        // One JPEG thumbnail per sample photo: the conventional store.
        let thumbnails = try FileManager.default.contentsOfDirectory(atPath: out + "/thumbnails")
        #expect(thumbnails.count == 6)
    }

    @Test("demo --photos uses the given folder, found by content")
    func demoWithPhotos() throws {
        let folder = try TemporaryFolder()
        try folder.copyTestdata("png/astronaut-rgb.png", into: "photos", as: "no-extension")
        try folder.copyTestdata(
            "webp/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/webp").sorted().first)),
            into: "photos/sub", as: "w.bin")
        try FileManager.default.createDirectory(atPath: folder.path("photos"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder.path("photos/readme.txt"), contents: Data("not an image".utf8))
        let run = try Fic.run(["demo", "--cells", "12", "--photos", folder.path("photos"), "--out", folder.path("out")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("fic demo: 2 photos"), "\(run.stdout)")
    }
}
