import FICHarness
import FICTestSupport
import Foundation
import Testing

/// `fic serve` against the official IIIF Image API validator (`iiif-validator` from PyPI, installed
/// into the checkout's `.build/python` by scripts/install-deps), at compliance level 2 of version 3.0.
@Suite(.serialized) struct ServeValidatorTests {
    /// The checkout's Python environment (`FIC_PYTHON` overrides), its path as it is: resolving
    /// its link would name the Python it was made from, beside which the validator is not.
    static let python: String = ProcessInfo.processInfo.environment["FIC_PYTHON"] ?? ExternalTools.projectPython
    /// The validator's command-line script, beside that Python.
    static var validator: String { (python as NSString).deletingLastPathComponent + "/iiif-validate.py" }
    /// The identifier the validator asks for: its test image's.
    static let identifier = "67352ccc-d1b0-11e1-89ae-279075081939"

    static var available: Bool {
        let present = FileManager.default.isExecutableFile(atPath: python) && FileManager.default.fileExists(atPath: validator)
        // scripts/test installs it; there a missing validator is a failure, not a skip.
        if !present && ProcessInfo.processInfo.environment["FIC_REQUIRE_TEST_SERVER"] == nil {
            print("skipping the IIIF validator tests: \(validator) is missing (run scripts/install-deps)")
            return false
        }
        return true
    }

    /// The validator's test image, drawn from the validator's own table of colours: 10 × 10 squares
    /// of 100 pixels, which its tests look for in every answer.
    static func makeTestImage(at path: String) throws {
        let script = """
            import sys
            from iiif_validator.validator import ValidationInfo
            from PIL import Image, ImageDraw
            colors = ValidationInfo().colorInfo
            image = Image.new("RGB", (1000, 1000))
            draw = ImageDraw.Draw(image)
            for x in range(10):
                for y in range(10):
                    draw.rectangle([x * 100, y * 100, x * 100 + 99, y * 100 + 99], fill=colors[x][y])
            image.save(sys.argv[1])
            """
        let run = try ChildProcess.capture(python, ["-c", script, path])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test(.enabled(if: available)) func level2OfVersion3() async throws {
        let folder = try TemporaryFolder()
        let image = folder.path("test.png")
        try Self.makeTestImage(at: image)
        let tiled = try Fic.run(["tile", image, "--out", folder.path("store/\(Self.identifier)")])
        #expect(tiled.status == 0, "\(tiled.stderr)")
        let server = try await FicServer.start(store: folder.path("store"))
        let arguments = ["-s", "127.0.0.1:\(server.port)", "-p", "iiif/3", "-i", Self.identifier, "--version=3.0"]
        // Every test of levels 0 to 2.
        let level2 = try ChildProcess.capture(Self.python, [Self.validator] + arguments + ["--level", "2"])
        print(level2.stdout + level2.stderr)
        #expect(level2.status == 0, "\(level2.stderr)")
        #expect(level2.stderr.contains("0 failures") || level2.stdout.contains("0 failures"))
        #expect((level2.stdout + level2.stderr).components(separatedBy: " PASS").count - 1 >= 30, "the validator ran its level-2 tests")
        // Mirroring, announced among the extra features.
        let mirroring = try ChildProcess.capture(Self.python, [Self.validator] + arguments + ["--test", "rot_mirror", "--test", "rot_mirror_180"])
        #expect(mirroring.status == 0, "\(mirroring.stdout)\(mirroring.stderr)")
    }
}
