import FastImageCache
import Foundation
import ImageCodec
import Testing

@Suite("decode")
struct DecodeTests {
    @Test("decode writes a full-size, upright PNG")
    func decodeGood() throws {
        let folder = try TemporaryFolder()
        let out = folder.path("upright.png")
        // Stored 300×451 (or so) with orientation 6: displayed with width and height swapped.
        let file = Fic.testdata + "/jpeg/orientation/chelsea-orientation-6.jpg"
        let stored = try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(stored.orientation == .right)
        let run = try Fic.run(["decode", file, "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(written.format == .png)
        #expect(written.width == stored.height && written.height == stored.width)
        #expect(run.stdout.contains("orientation 6 applied"))
    }

    @Test(
        "decode of a bad file exits 1 with one clear line",
        arguments: ["bad/truncated.png", "bad/text.jpg", "bad/empty.jpg", "no-such-file.jpg"])
    func decodeBad(_ file: String) throws {
        let folder = try TemporaryFolder()
        let out = folder.path("out.png")
        let run = try Fic.run(["decode", Fic.testdata + "/" + file, "--out", out])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("fic: cannot decode"))
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("decode of a damaged JPEG shows what can be recovered and says what was wrong; --strict refuses it")
    func decodeDamaged() throws {
        let folder = try TemporaryFolder()
        // A real photo whose decoder loses its way: 3,000 bytes of junk before its end marker.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fic.testdata + "/photos/astronaut.jpg")))
        bytes.insert(contentsOf: [UInt8](repeating: 0x5A, count: 3000), at: bytes.count - 2)
        let damaged = folder.path("damaged.jpg")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let shown = try Fic.run(["decode", damaged, "--out", folder.path("shown.png")])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("the file is damaged") && shown.stdout.contains("extraneous bytes"), "\(shown.stdout)")
        #expect(FileManager.default.fileExists(atPath: folder.path("shown.png")))
        let strict = try Fic.run(["decode", damaged, "--strict", "--out", folder.path("strict.png")])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("corrupt"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("strict.png")))
    }
}
