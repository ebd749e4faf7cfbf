#if Tool
import ArgumentParser
import FICCommandLine
import FICDemo
import FastImageCache

/// `fic-demo`: `fic demo` alone (``DemoOptions``, ``DemoRun``).
struct DemoCommand: ParsableCommand {
    static let configuration = DemoOptions.configuration(commandName: "fic-demo")

    @OptionGroup var options: DemoOptions

    func run() throws {
        let demo = try options.prepare()
        print("fic demo: \(demo.plan)")
        try demo.run { Terminal.error("skipped \($0): \($1)") }.summary.forEach { print($0) }
    }
}

// `fic demo` alone, for scripts/demo: it builds in a fraction of fic's time (no HTTP client,
// no server, no viewer), so that a newcomer sees the demo within minutes of cloning.
ImageCache.returnFreedMemoryPromptly()
await ExitStatus.main(DemoCommand.self)
#else
#error("fic-demo needs the package trait \"Tool\" (on by default): build without --disable-default-traits, or with --traits Tool.")
#endif
