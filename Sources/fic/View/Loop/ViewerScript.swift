#if Tool
import FICCommandLine
import Foundation

/// A script of input for `--script FILE`, played with deterministic timing: every frame
/// advances the viewer's clock by exactly 1/60 s, whatever the frame really took, so a
/// scripted fling or zoom ends at the same place on every machine.
///
/// One command a line; `#` starts a comment:
///
///     scroll 400              scroll the gallery down 400 px (negative: up)
///     scroll-to 0             scroll the gallery to an offset
///     fling 8000              set the gallery moving at 8000 px/s (friction slows it down)
///     zoom 2 at 640 400       zoom the photo ×2 around a window point (default: the centre)
///     zoom-to 1 at 640 400    zoom to a scale (1 = one image pixel per window pixel)
///     fit                     fit the photo in the window
///     pan 100 -50             move the view over the photo by window pixels
///     drag 600 400 to 600 100 in 10   a mouse drag over 10 frames (then released)
///     toggle-path             switch the gallery between the cache and the conventional path
///     replay                  play the animations shown from their first frame: the next frame
///                             shows time 0, and each frame after it 1/60 s more
///     overlay on|off          show or hide the statistics overlay
///     phase NAME              label the frames that follow in the statistics
///     screenshot FILE.png     save the window now
///     wait 30                 let 30 frames pass
///     wait-idle [FRAMES]      let frames pass until nothing moves or loads (at most FRAMES, default
///                             1200); these frames are paced at 60 a second, so the limit is time
///     wait-file PATH [FRAMES] let frames pass until the file PATH exists (at most FRAMES, default
///                             3600, paced as wait-idle): another program says when to go on
///     wait-shown N [FRAMES]   let frames pass until the last frame showed N images on screen
///                             (the gallery's cells; at most FRAMES, default 1200, paced as wait-idle)
///     quit                    stop here (the end of the script stops too)
struct ViewerScript {
    /// One step of the script.
    enum Step: Equatable {
        /// Actions applied at the start of the next frame.
        case act(ViewerAction)
        /// Frames to let pass.
        case wait(Int)
        /// Frames until the condition holds, at most `limit`.
        case waitUntil(Condition, limit: Int)
    }

    /// What a waiting step waits for.
    enum Condition: Equatable {
        /// The mode has nothing moving or loading.
        case idle
        /// The file exists.
        case file(String)
        /// The last frame showed at least this many images.
        case shown(Int)
    }

    /// The steps, in order.
    let steps: [Step]

    /// Parses the script at `path`.
    ///
    /// - Throws: ``CLIError`` (usage status) naming the line that is wrong and what was expected.
    init(contentsOf path: String, width: Int, height: Int) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError("cannot read the script \(path): \(error.localizedDescription)", status: ExitStatus.usage)
        }
        try self.init(text: text, name: path, width: width, height: height)
    }

    /// Parses `text` (named `name` in messages) for a `width × height` window.
    init(text: String, name: String = "script", width: Int, height: Int) throws {
        var steps: [Step] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let command = words.first else { continue }
            func bad(_ why: String) -> CLIError {
                CLIError("\(name) line \(index + 1): \(why)", status: ExitStatus.usage)
            }
            func number(_ i: Int) throws -> Double {
                guard i < words.count, let v = Double(words[i]), v.isFinite, abs(v) < 1e9 else {
                    throw bad("'\(command)' expects a number as argument \(i)")
                }
                return v
            }
            func count(_ i: Int) throws -> Int {
                guard i < words.count, let v = Int(words[i]), v >= 0, v <= 1_000_000 else {
                    throw bad("'\(command)' expects a frame count (0…1000000) as argument \(i)")
                }
                return v
            }
            /// `at X Y` after `from`, or the window's centre.
            func point(after from: Int) throws -> (Double, Double) {
                guard words.count > from else { return (Double(width) / 2, Double(height) / 2) }
                guard words[from] == "at", words.count == from + 3 else {
                    throw bad("expected 'at X Y' after '\(words[0..<from].joined(separator: " "))'")
                }
                return (try number(from + 1), try number(from + 2))
            }
            func arguments(_ n: Int) throws {
                guard words.count == n + 1 else { throw bad("'\(command)' takes \(n) argument\(n == 1 ? "" : "s")") }
            }
            switch command {
            case "scroll": try arguments(1); steps.append(.act(.scrollBy(try number(1))))
            case "scroll-to": try arguments(1); steps.append(.act(.scrollTo(try number(1))))
            case "fling": try arguments(1); steps.append(.act(.fling(try number(1))))
            case "zoom":
                let factor = try number(1)
                guard factor > 0 else { throw bad("the zoom factor must be positive") }
                let (x, y) = try point(after: 2)
                steps.append(.act(.zoomBy(factor: factor, x: x, y: y)))
            case "zoom-to":
                let scale = try number(1)
                guard scale > 0 else { throw bad("the scale must be positive") }
                let (x, y) = try point(after: 2)
                steps.append(.act(.zoomTo(scale: scale, x: x, y: y)))
            case "fit": try arguments(0); steps.append(.act(.fit))
            case "pan": try arguments(2); steps.append(.act(.panBy(dx: try number(1), dy: try number(2))))
            case "drag":
                guard words.count == 8, words[3] == "to", words[6] == "in" else { throw bad("expected 'drag X Y to X Y in FRAMES'") }
                let (x0, y0, x1, y1) = (try number(1), try number(2), try number(4), try number(5))
                let frames = max(1, try count(7))
                guard frames <= 10_000 else { throw bad("a drag lasts at most 10000 frames") }
                steps.append(.act(.dragBegan(x: x0, y: y0)))
                for i in 1...frames {
                    let t = Double(i) / Double(frames)
                    steps.append(.wait(1))
                    steps.append(.act(.dragMoved(x: x0 + (x1 - x0) * t, y: y0 + (y1 - y0) * t)))
                }
                steps.append(.act(.dragEnded(x: x1, y: y1)))
            case "toggle-path": try arguments(0); steps.append(.act(.togglePath))
            case "replay": try arguments(0); steps.append(.act(.replay))
            case "overlay":
                try arguments(1)
                guard words[1] == "on" || words[1] == "off" else { throw bad("expected 'overlay on' or 'overlay off'") }
                steps.append(.act(.overlay(words[1] == "on")))
            case "phase": try arguments(1); steps.append(.act(.phase(words[1])))
            case "screenshot": try arguments(1); steps.append(.act(.screenshot(Paths.absolute(words[1]))))
            case "wait": try arguments(1); steps.append(.wait(try count(1)))
            case "wait-idle":
                guard words.count <= 2 else { throw bad("'wait-idle' takes at most one argument") }
                steps.append(.waitUntil(.idle, limit: words.count == 2 ? try count(1) : 1200))
            case "wait-file":
                guard words.count == 2 || words.count == 3 else { throw bad("expected 'wait-file PATH [FRAMES]'") }
                steps.append(.waitUntil(.file(Paths.absolute(words[1])), limit: words.count == 3 ? try count(2) : 3600))
            case "wait-shown":
                guard words.count == 2 || words.count == 3 else { throw bad("expected 'wait-shown IMAGES [FRAMES]'") }
                steps.append(.waitUntil(.shown(try count(1)), limit: words.count == 3 ? try count(2) : 1200))
            case "quit": try arguments(0); steps.append(.act(.quit))
            default:
                throw bad("unknown command '\(command)'; see `fic view --help` for the script commands")
            }
        }
        self.steps = steps
    }
}

/// Plays a ``ViewerScript`` frame by frame.
struct ScriptPlayer {
    private let steps: [ViewerScript.Step]
    private var next = 0
    private var framesLeft = 0
    private var waitingFor: ViewerScript.Condition?
    /// Waits that ended at their frame limit rather than on what they waited for.
    private(set) var timedOutWaits = 0

    init(_ script: ViewerScript) {
        steps = script.steps
    }

    /// Whether it is letting frames pass until the mode is idle or a file exists (frames are
    /// paced then, so that the limit is about time).
    var isWaiting: Bool { waitingFor != nil }

    /// Whether every step has been played.
    var finished: Bool { next >= steps.count && framesLeft == 0 && waitingFor == nil }

    /// The actions for the next frame. `idle` tells whether the mode has nothing moving or
    /// loading, `shown` how many images the last frame showed.
    mutating func actions(idle: Bool, shown: Int) -> [ViewerAction] {
        if let condition = waitingFor {
            framesLeft -= 1
            let met: Bool
            switch condition {
            case .idle: met = idle
            case .file(let path): met = FileManager.default.fileExists(atPath: path)
            case .shown(let images): met = shown >= images
            }
            if met || framesLeft <= 0 {
                if !met { timedOutWaits += 1 }
                waitingFor = nil
                framesLeft = 0
            } else {
                return []
            }
        }
        if framesLeft > 0 {
            framesLeft -= 1
            if framesLeft > 0 { return [] }
        }
        var actions: [ViewerAction] = []
        while next < steps.count {
            let step = steps[next]
            next += 1
            switch step {
            case .act(let action):
                actions.append(action)
                // A screenshot shows the frame as the actions before it left it: what follows
                // waits for the next frame.
                if case .screenshot = action { return actions }
            case .wait(let frames):
                if frames > 0 {
                    framesLeft = frames
                    return actions
                }
            case .waitUntil(let condition, let limit):
                waitingFor = condition
                framesLeft = max(1, limit)
                return actions
            }
        }
        return actions
    }
}
#endif
