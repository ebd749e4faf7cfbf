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

    @Flag(name: .long, help: "Accept a cache directory or namespace that is a symbolic link (refused otherwise, so that the cache never writes where it was not pointed).")
    var followLinks = false

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

    /// How the library opens the cache: read-only when `readOnly`, following links when asked.
    func options(readOnly: Bool) -> TableOpenOptions {
        TableOpenOptions(readOnly: readOnly, followsSymbolicLinkedFolder: followLinks)
    }

    /// Opens the existing cache with the formats it was made with; `readOnly` for commands that
    /// only read (they then work on read-only media and change nothing).
    func openExisting(readOnly: Bool) throws -> (ImageCache, CacheDescription) {
        let description = try CacheDescription.load(directory: directory, namespace: namespace, followLinks: followLinks)
        let formats = try description.storedFormats(directory: directory, namespace: namespace)
        return (try CacheOpener.open(directory: directory, namespace: namespace, formats: formats, options: options(readOnly: readOnly)), description)
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

    /// Opens (or creates) the cache, with `provider` for the images it lacks.
    static func open(directory: String, namespace: String, formats: [ImageFormat], options: TableOpenOptions = .init(), provider: (any ImageSourceProvider)? = nil) throws -> ImageCache {
        do {
            return try ImageCache(directory: directory, namespace: namespace, formats: formats, provider: provider, options: options, logger: quietLogger)
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
    /// `path` with `~` expanded, made absolute against the current directory. Symbolic links
    /// are left as they are (Foundation's `standardizingPath` resolves them, which would hide a
    /// linked cache folder from the check that refuses it).
    static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded }
        let cwd = FileManager.default.currentDirectoryPath
        return expanded == "." ? cwd : (cwd as NSString).appendingPathComponent(expanded)
    }
}
