@testable import FICCommandLine
import FICHarness
import FICTestSupport
import Foundation
import Testing
@testable import fic

/// `fic view` where no window can be opened: the viewer's own message, and nothing that SDL or
/// the libraries it loads say to the terminal.
@Suite("fic view without a display")
struct ViewWithoutDisplayTests {
    /// Every variable that points SDL at a display, or that libwayland needs to find one.
    static let displayVariables = ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XDG_RUNTIME_DIR", "SDL_VIDEODRIVER"]

    /// Runs `fic view COMMAND` on a folder of one photo (or that photo, for `photo`) with none of
    /// ``displayVariables`` but `environment`, and checks that stderr holds the viewer's message
    /// alone.
    static func expectOnlyTheViewersMessage(
        _ command: [String], environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let binary = try #require(Fic.binary, "the fic binary was not found next to the test bundle; set FIC_BINARY")
        let folder = try TemporaryFolder()
        try folder.copyTestdata("photos/coffee.jpg", into: "photos", as: "a.jpg")
        let target = command == ["photo"] ? folder.path("photos/a.jpg") : folder.path("photos")
        let run = try ChildProcess.run(
            binary, ["view"] + command + [target],
            extraEnvironment: environment.merging(["XDG_CACHE_HOME": folder.path("xdg")]) { $1 },
            removedEnvironment: displayVariables.filter { environment[$0] == nil }, timeout: .seconds(300))
        #expect(run.ending == .exited(1), "\(run.standardError)", sourceLocation: sourceLocation)
        let lines = run.standardError.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 1, "one line, the viewer's: \(run.standardError)", sourceLocation: sourceLocation)
        #expect(
            lines.first?.hasPrefix("fic: cannot open a window: there is no display") == true, "\(run.standardError)",
            sourceLocation: sourceLocation)
        #expect(lines.first?.contains("xvfb-run") == true, "\(run.standardError)", sourceLocation: sourceLocation)
    }

    @Test("no display named: only the viewer's message is on stderr", arguments: [["gallery", "--photos"], ["photo"]])
    func noDisplay(_ command: [String]) throws {
        try Self.expectOnlyTheViewersMessage(command)
    }

    /// libwayland prints "XDG_RUNTIME_DIR is invalid or not set" itself when asked for a display
    /// named without the folder its socket is in.
    @Test("a Wayland display without its runtime folder: only the viewer's message")
    func waylandWithoutRuntimeFolder() throws {
        try Self.expectOnlyTheViewersMessage(["gallery", "--photos"], environment: ["WAYLAND_DISPLAY": "wayland-7"])
    }

    @Test("the driver SDL is told to use follows the displays the environment names")
    func videoDriverChoice() throws {
        func driver(_ environment: [String: String]) throws -> String? {
            try SDL.videoDriver(environment: { environment[$0] }, noDisplay: CLIError("none"))
        }
        #expect(try driver(["DISPLAY": ":0"]) == "x11")
        #expect(try driver(["WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": "/run/user/1000"]) == "wayland")
        #expect(try driver(["WAYLAND_DISPLAY": "/run/user/1000/wayland-0"]) == "wayland")
        #expect(try driver(["WAYLAND_SOCKET": "5"]) == "wayland")
        #expect(try driver(["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"]) == "x11", "the Wayland display's folder is unknown")
        #expect(try driver(["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": "/run/user/1000"]) == nil)
        #expect(try driver(["SDL_VIDEODRIVER": "offscreen"]) == nil)
        #expect(throws: CLIError.self) { try driver([:]) }
        #expect(throws: CLIError.self) { try driver(["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ""]) }
    }
}
