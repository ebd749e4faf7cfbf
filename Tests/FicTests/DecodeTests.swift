import FastImageCache
import Foundation
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

    @Test("decode of a bad file exits 1 with one clear line", arguments: ["bad/truncated.png", "bad/text.jpg", "bad/empty.jpg", "no-such-file.jpg"])
    func decodeBad(_ file: String) throws {
        let folder = try TemporaryFolder()
        let out = folder.path("out.png")
        let run = try Fic.run(["decode", Fic.testdata + "/" + file, "--out", out])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("fic: cannot decode"))
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
