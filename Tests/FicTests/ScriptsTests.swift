import FICHarness
import FICTestSupport
import Foundation
import Testing

/// The scripts a newcomer runs first: their `--help` answers at once, without installing or
/// building anything, and says what the command behind it takes.
@Suite struct ScriptsTests {
    /// The checkout's root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path

    /// The options a `--help` text lists: every `--word` in it.
    static func options(_ help: String) -> Set<String> {
        Set(help.matches(of: /--[a-z][a-z-]*/).map { String($0.output) }).subtracting(["--help"])
    }

    @Test func theDemoScriptsHelpListsEveryOptionOfFicDemoWithoutBuilding() throws {
        // An empty PATH: were the script to install or build, it would fail (no apt-get, no swift).
        let script = try ChildProcess.capture("/bin/bash", [Self.root + "/scripts/demo", "--help"], environment: ["PATH": ""])
        #expect(script.status == 0, "\(script.stderr)")
        let fic = try Fic.run(["demo", "--help"])
        #expect(fic.status == 0)
        let missing = Self.options(fic.stdout).subtracting(Self.options(script.stdout))
        #expect(missing.isEmpty, "scripts/demo --help does not list \(missing.sorted()) of fic demo's options:\n\(script.stdout)")
        #expect(!Self.options(fic.stdout).isEmpty)
    }

    @Test func theInstallScriptsHelpAnswersWithoutInstalling() throws {
        for script in ["install", "install-deps"] {
            let run = try ChildProcess.capture("/bin/bash", [Self.root + "/scripts/" + script, "--help"], environment: ["PATH": ""])
            #expect(run.status == 0, "scripts/\(script) --help: \(run.stderr)")
            #expect(run.stdout.contains("Debian") || run.stdout.contains("PREFIX"), "scripts/\(script) --help: \(run.stdout)")
        }
    }
}
