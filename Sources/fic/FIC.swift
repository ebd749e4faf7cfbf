import ArgumentParser

@main
struct FIC: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fic", abstract: "FastImageCache command-line tool.")
}
