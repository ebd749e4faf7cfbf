#if Tool
import ArgumentParser
import FastImageCache
import Foundation
import Logging

/// `--cache DIR` and `--namespace NS`, shared by the commands that open a cache.
package struct CacheOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("The cache directory (default: $XDG_CACHE_HOME/fic, or ~/.cache/fic).", valueName: "dir"))
    package var cache: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The namespace: a folder of the cache directory (default: the photo folder's own namespace, or 'default').", valueName: "ns"))
    package var namespace: String?

    @Flag(
        name: .long,
        help:
            "Accept a cache directory or namespace that is a symbolic link (refused otherwise, so that the cache never writes where it was not pointed)."
    )
    package var followLinks = false

    package func validate() throws {
        if let namespace { try Self.validateName(namespace, what: "--namespace") }
    }

    /// Refuses names the cache would refuse (and paths such as `..`), as a usage error.
    package static func validateName(_ name: String, what: String) throws {
        let ok =
            !name.isEmpty && name.count <= 128 && name != "." && name != ".."
            && name.unicodeScalars.allSatisfy { s in
                (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "." || s == "-" || s == "_"
            }
        guard ok else { throw ValidationError("\(what) '\(name)' is invalid: use 1 to 128 letters, digits, '.', '-' or '_'") }
    }

    /// Whether the directory is the default one (no `--cache`).
    package var usesDefaultDirectory: Bool { cache == nil }

    /// The absolute cache directory: `--cache`, or the default folder (``DefaultCache``).
    package func directory() throws -> String {
        try cache.map(Paths.absolute) ?? DefaultCache.directory()
    }

    /// The cache a reading command (get, inspect, verify) opens: `--namespace` or `--photos`.
    ///
    /// - Throws: ``CLIError`` (usage) when both are given.
    package func location(choosing folder: PhotoFolderOption) throws -> CacheLocation {
        if namespace != nil && folder.photos != nil {
            throw CLIError("give --namespace or --photos, not both", status: ExitStatus.usage)
        }
        return try location(photos: folder.photos)
    }

    /// The cache: `--namespace` if given, else the namespace of the photo folder `photos` if
    /// given, else `default`.
    package func location(photos: String?) throws -> CacheLocation {
        let name = try namespace ?? photos.map(DefaultCache.namespace(forPhotos:)) ?? "default"
        return CacheLocation(directory: try directory(), namespace: name, followLinks: followLinks)
    }
}

/// One cache: a directory and a namespace in it.
package struct CacheLocation {
    /// The absolute cache directory.
    package let directory: String
    /// The namespace.
    package let namespace: String
    /// Whether a linked cache directory or namespace is accepted.
    package let followLinks: Bool

    /// The namespace `namespace` of the cache folder `directory`, reached through links when `followLinks`.
    package init(directory: String, namespace: String, followLinks: Bool) {
        self.directory = directory
        self.namespace = namespace
        self.followLinks = followLinks
    }

    /// `DIRECTORY/NAMESPACE`, for messages.
    package var path: String { (directory as NSString).appendingPathComponent(namespace) }

    /// How the library opens the cache: read-only when `readOnly`, following links when asked.
    package func options(readOnly: Bool) -> TableOpenOptions {
        TableOpenOptions(readOnly: readOnly, followsSymbolicLinkedFolder: followLinks)
    }

    /// Opens the existing cache with the formats it was made with; `readOnly` for commands that
    /// only read (they then work on read-only media and change nothing).
    package func openExisting(readOnly: Bool) throws -> (ImageCache, CacheDescription) {
        let description = try CacheDescription.load(directory: directory, namespace: namespace, followLinks: followLinks)
        let formats = try description.storedFormats(directory: directory, namespace: namespace)
        return (
            try CacheOpener.open(directory: directory, namespace: namespace, formats: formats, options: options(readOnly: readOnly)),
            description
        )
    }
}

/// `--photos DIR` of the commands that read a cache (get, inspect, verify): the namespace of a
/// photo folder, as the viewer and `fic ingest DIR` name it.
package struct PhotoFolderOption: ParsableArguments {
    package init() {}

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Choose the namespace of this photo folder (as `fic view gallery --photos DIR` and `fic ingest DIR` without --cache name it).",
            valueName: "dir"))
    package var photos: String?
}

/// Opens caches for the tool, with the libraries' logging kept off the terminal.
package enum CacheOpener {
    /// A logger that prints only critical messages: the tool reports problems itself.
    package static var quietLogger: Logger {
        var logger = Logger(label: "fic", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .critical
        return logger
    }

    /// Opens (or creates) the cache, with `provider` for the images it lacks.
    package static func open(
        directory: String, namespace: String, formats: [ImageFormat], options: TableOpenOptions = .init(),
        provider: (any ImageSourceProvider)? = nil
    ) throws -> ImageCache {
        guard
            let cache = try openUnlessInUse(
                directory: directory, namespace: namespace, formats: formats, options: options, provider: provider)
        else {
            throw CLIError("the cache \(directory)/\(namespace) is open in another process: wait for it to finish and try again")
        }
        return cache
    }

    /// Opens (or creates) the cache, or returns nil when another process (or cache object) has
    /// it open.
    package static func openUnlessInUse(
        directory: String, namespace: String, formats: [ImageFormat], options: TableOpenOptions = .init(),
        provider: (any ImageSourceProvider)? = nil
    ) throws -> ImageCache? {
        do {
            return try ImageCache(
                directory: directory, namespace: namespace, formats: formats, provider: provider, options: options, logger: quietLogger)
        } catch let error as ImageCacheError {
            if error.code == .inUse { return nil }
            throw CLIError("cannot open the cache \(directory)/\(namespace): \(error)")
        }
    }
}

/// Path helpers.
package enum Paths {
    /// `path` with `~` expanded, made absolute against the current directory. Symbolic links
    /// are left as they are (Foundation's `standardizingPath` resolves them, which would hide a
    /// linked cache folder from the check that refuses it).
    package static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded }
        let cwd = FileManager.default.currentDirectoryPath
        return expanded == "." ? cwd : (cwd as NSString).appendingPathComponent(expanded)
    }
}
#endif
