#if Tool
import FICCore
import FastImageCache
import Foundation

/// Where fic keeps its caches when no `--cache` is given, and the namespace of a photo folder.
///
/// The folder is where Linux programs keep caches (the XDG base directories): `$XDG_CACHE_HOME/fic`
/// when `XDG_CACHE_HOME` is an absolute path, else `~/.cache/fic`. Each photo folder gets a
/// namespace of its own, named after the folder's resolved real path, so that the viewer, `fic
/// ingest DIR` and the other commands find the same tables for the same folder however it is
/// spelled (a relative path, a link to it).
package enum DefaultCache {
    /// The size the default folder is kept under, in MiB (the least recently used namespaces go first).
    package static let limitMiB = 2048

    /// The default cache folder: the user's cache folder for `fic` (``CacheDirectory/user(named:environment:)``).
    ///
    /// - Throws: ``CLIError`` when neither an absolute `XDG_CACHE_HOME` nor a home folder is known.
    package static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        do {
            return try CacheDirectory.user(named: "fic", environment: environment).path
        } catch {
            throw CLIError("no cache folder: set HOME or XDG_CACHE_HOME, or give --cache DIR")
        }
    }

    /// The namespace of the photo folder at `folder`: a readable prefix made of the folder's
    /// name (letters, digits, `.`, `-`, `_`; other characters become `_`; at most 40, no leading
    /// dot, "photos" when nothing readable is left), a `-`, and 16 hex digits of the SHA-256 of its
    /// resolved real path.
    ///
    /// - Throws: ``CLIError`` when the folder does not exist.
    package static func namespace(forPhotos folder: String) throws -> String {
        let resolved = try realPath(folder)
        return namespace(forResolvedPath: resolved)
    }

    /// The namespace of a folder whose real path is `resolved`.
    package static func namespace(forResolvedPath resolved: String) -> String {
        let digest = SHA256Hex.digest(of: resolved, length: 8)
        let name = resolved.split(separator: "/").last.map(String.init) ?? ""
        var prefix = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { s in
                    (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "." || s == "-" || s == "_" ? s : "_"
                }
            ).prefix(40))
        while prefix.hasPrefix(".") { prefix.removeFirst() }  // never a hidden folder
        // A name with nothing readable left (the root, a name in another script) says "photos".
        let readable = prefix.unicodeScalars.contains { ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") }
        return (readable ? prefix : "photos") + "-" + digest
    }

    /// The real path of `path` (absolute, links resolved).
    package static func realPath(_ path: String) throws -> String {
        guard let resolved = realpath(Paths.absolute(path), nil) else {
            throw CLIError("\(Paths.absolute(path)) does not exist: give a folder of photos")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
#endif
