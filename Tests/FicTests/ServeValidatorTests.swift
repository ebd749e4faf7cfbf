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

    /// The validator's one level-2 test that the Image API's text contradicts: `size_noup` asks
    /// its 1000 × 1000 image for `!2000,3000` and fails on a 200, where § 4.2 answers a `!w,h` box
    /// larger than the region with the region's own size ("The returned image MUST be as large as
    /// possible but not larger than the extracted region, w or h, or server-imposed limits"), as
    /// viewers' thumbnails (`!120,120` of smaller images) need. It runs on its own, below.
    static let contradicted = "size_noup"

    /// The names of the validator's tests of levels 0 to 2 of version 3.0.
    static func level2TestNames() throws -> [String] {
        let script = """
            from iiif_validator.validator import ValidationInfo, TestSuite
            tests = TestSuite(ValidationInfo()).list_tests("3.0")
            print("\\n".join(sorted(name for name, info in tests.items() if info["level"] <= 2)))
            """
        let run = try ChildProcess.capture(python, ["-c", script])
        #expect(run.status == 0, "\(run.stderr)")
        // The validator's module prints a line of its own on import ("Importing 3"): names only.
        return run.stdout.split(separator: "\n").map(String.init).filter { $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" } }
    }

    @Test(.enabled(if: available)) func level2OfVersion3() async throws {
        let folder = try TemporaryFolder()
        let image = folder.path("test.png")
        try Self.makeTestImage(at: image)
        let tiled = try Fic.run(["tile", image, "--out", folder.path("store/\(Self.identifier).tif")])
        #expect(tiled.status == 0, "\(tiled.stderr)")
        let server = try await FicServer.start(store: folder.path("store"))
        let arguments = ["-s", "127.0.0.1:\(server.port)", "-p", "iiif/3", "-i", Self.identifier, "--version=3.0"]
        // Every test of levels 0 to 2 but the one the specification's text contradicts.
        let names = try Self.level2TestNames()
        #expect(names.contains(Self.contradicted) && names.count >= 31, "\(names)")
        let tests = names.filter { $0 != Self.contradicted }.flatMap { ["--test", $0] }
        let level2 = try ChildProcess.capture(Self.python, [Self.validator] + arguments + tests)
        print(level2.stdout + level2.stderr)
        #expect(level2.status == 0, "\(level2.stderr)")
        #expect(level2.stderr.contains("0 failures") || level2.stdout.contains("0 failures"))
        #expect(
            (level2.stdout + level2.stderr).components(separatedBy: " PASS").count - 1 == names.count - 1,
            "the validator ran its level-2 tests")
        // size_noup: its first four sizes (larger than the image, without '^') are refused, and
        // its fifth, !2000,3000, is answered (1000 × 1000), which it counts as its one failure.
        // Each of its checks stops the test at the first answer it does not expect, so the URLs
        // it asked for say how far it went.
        let noUp = """
            import sys
            from iiif_validator.validator import ValidationInfo, TestSuite, ImageAPI
            result = ImageAPI(sys.argv[1], sys.argv[2], "iiif/3", "http", "", "3.0", debug=False)
            try:
                TestSuite(ValidationInfo()).run_test("\(Self.contradicted)", result)
            except Exception:
                pass
            print("\\n".join(result.urls + [str(result.last_status)]))
            """
        let asked = try ChildProcess.capture(Self.python, ["-c", noUp, Self.identifier, "127.0.0.1:\(server.port)"])
        #expect(asked.status == 0, "\(asked.stderr)")
        // The URLs and the last status, after whatever the module printed on import.
        let lines = asked.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("http") || $0.allSatisfy(\.isNumber) }
        #expect(lines.count == 6 && lines[4].hasSuffix("/full/!2000,3000/0/default.jpg") && lines[5] == "200", "\(asked.stdout)")
        // Mirroring, announced among the extra features.
        let mirroring = try ChildProcess.capture(
            Self.python, [Self.validator] + arguments + ["--test", "rot_mirror", "--test", "rot_mirror_180"])
        #expect(mirroring.status == 0, "\(mirroring.stdout)\(mirroring.stderr)")
        // `fic serve` enlarges `^` sizes; with --no-upscaling it answers them 501, says why, and
        // leaves sizeUpscaling out of info.json.
        let get = { (port: Int, path: String) in
            try await OwnThread.running {
                try LoopbackSocket.exchange(
                    port, Array("GET /iiif/3/\(Self.identifier)/\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            }
        }
        #expect(try await get(server.port, "full/^pct:120/0/default.jpg").hasPrefix("HTTP/1.1 200"))
        #expect(try await get(server.port, "info.json").contains("\"sizeUpscaling\""))
        let refusing = try await FicServer.start(store: folder.path("store"), extra: ["--no-upscaling"])
        let refused = try await get(refusing.port, "full/^pct:120/0/default.jpg")
        #expect(refused.hasPrefix("HTTP/1.1 501") && refused.contains("does not upscale"), "\(refused)")
        #expect(try await get(refusing.port, "full/^pct:50/0/default.jpg").hasPrefix("HTTP/1.1 200"))
        #expect(!(try await get(refusing.port, "info.json").contains("sizeUpscaling")))
    }
}
