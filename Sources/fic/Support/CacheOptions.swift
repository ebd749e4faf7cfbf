import ArgumentParser
import FastImageCache
import Foundation
import Logging

/// `--cache DIR` and `--namespace NS`, shared by the commands that open a cache.
struct CacheOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The cache directory.", valueName: "dir"))
    var cache: String

    @Option(name: .long, help: ArgumentHelp("The namespace: a folder of the cache directory.", valueName: "ns"))
    var namespace: String = "default"

    func validate() throws {
        try Self.validateName(namespace, what: "--namespace")
    }

    /// Refuses names the cache would refuse (and paths such as `..`), as a usage error.
    static func validateName(_ name: String, what: String) throws {
        let ok = !name.isEmpty && name.count <= 128 && name != "." && name != ".."
            && name.unicodeScalars.allSatisfy { s in
                (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "." || s == "-" || s == "_"
            }
        guard ok else { throw ValidationError("\(what) '\(name)' is invalid: use 1 to 128 letters, digits, '.', '-' or '_'") }
    }

    /// The absolute cache directory.
    var directory: String { Paths.absolute(cache) }

    /// Opens the existing cache with the formats it was made with.
    func openExisting() throws -> (ImageCache, CacheDescription) {
        let description = try CacheDescription.load(directory: directory, namespace: namespace)
        return (try CacheOpener.open(directory: directory, namespace: namespace, formats: description.imageFormats()), description)
    }
}

/// Opens caches for the tool, with the libraries' logging kept off the terminal.
enum CacheOpener {
    /// A logger that prints only critical messages: the tool reports problems itself.
    static var quietLogger: Logger {
        var logger = Logger(label: "fic", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .critical
        return logger
    }

    /// Opens (or creates) the cache.
    static func open(directory: String, namespace: String, formats: [ImageFormat]) throws -> ImageCache {
        do {
            return try ImageCache(directory: directory, namespace: namespace, formats: formats, logger: quietLogger)
        } catch let error as ImageCacheError {
            if error.code == .inUse {
                throw CLIError("the cache \(directory)/\(namespace) is open in another process: wait for it to finish and try again")
            }
            throw CLIError("cannot open the cache \(directory)/\(namespace): \(error)")
        }
    }
}

/// Path helpers.
enum Paths {
    /// `path` made absolute against the current directory, standardized.
    static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        let cwd = FileManager.default.currentDirectoryPath
        return ((cwd as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }
}
