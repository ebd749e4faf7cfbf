#if Tool
import FastImageCache
import Foundation

/// The namespaces of a cache folder as `fic inspect` lists them: name, photo folder (from the
/// namespace's description), size on disk and last use, least recently used first.
package struct NamespaceListing: Codable {
    /// One namespace.
    package struct Entry: Codable {
        package var namespace: String
        var photos: String?
        var diskBytes: Int
        /// The last use, ISO 8601 (UTC).
        var lastUse: String
    }

    package var directory: String
    package var namespaces: [Entry]
    package var totalDiskBytes: Int

    /// Lists the namespaces of `directory` (none when it does not exist).
    package init(directory: String, followLinks: Bool) throws {
        let found: [CacheDirectory.Namespace]
        do {
            found = try CacheDirectory(path: directory, followsSymbolicLinkedFolder: followLinks).namespaces()
        } catch {
            throw CLIError("cannot list the cache folder \(directory): \(error)")
        }
        let dates = ISO8601DateFormatter()
        namespaces = found.map { n in
            let description = try? CacheDescription.loadIfPresent(directory: directory, namespace: n.name, followLinks: followLinks)
            return Entry(namespace: n.name, photos: description?.photos, diskBytes: n.diskBytes, lastUse: dates.string(from: n.lastUse))
        }
        self.directory = directory
        totalDiskBytes = found.reduce(0) { $0 + $1.diskBytes }
    }

    /// The names of the namespaces of `directory`, least recently used first; none when it does
    /// not exist or cannot be read (for messages about a namespace that is not there).
    package static func names(in directory: String, followLinks: Bool) -> [String] {
        ((try? CacheDirectory(path: directory, followsSymbolicLinkedFolder: followLinks).namespaces()) ?? []).map(\.name)
    }

    package func json() throws -> String { try Formatting.json(self) }

    package func table() -> String {
        guard !namespaces.isEmpty else { return "no namespaces in \(directory)" }
        var rows = [["namespace", "photos", "disk", "last use"]]
        for n in namespaces { rows.append([n.namespace, n.photos ?? "-", Formatting.bytes(n.diskBytes), n.lastUse]) }
        rows.append(["total", "", Formatting.bytes(totalDiskBytes), ""])
        return (["cache folder \(directory), least recently used first"] + Formatting.aligned(rows)).joined(separator: "\n")
    }
}
#endif
