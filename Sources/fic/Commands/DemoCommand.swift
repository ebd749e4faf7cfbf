#if Tool
import ArgumentParser
import FICCommandLine
import FICDemo

/// `fic demo`: the original Fast Image Cache demo, measured (``DemoOptions``, ``DemoRun``).
struct DemoCommand: ParsableCommand {
    static let configuration = DemoOptions.configuration(commandName: "demo")

    @OptionGroup var options: DemoOptions

    func run() throws {
        let demo = try options.prepare()
        print("fic demo: \(demo.plan)")
        try demo.run { Terminal.error("skipped \($0): \($1)") }.summary.forEach { print($0) }
    }
}
#endif
