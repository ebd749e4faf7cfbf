#if Tool
import FICCommandLine
import FastImageCache
import Foundation

/// Keeps a cache folder under its size limit for the tool: the library removes the least
/// recently used namespaces (never one in use, never the one kept), and fic removes its own
/// companion files of each (``CompanionFile``) while the namespace is still locked.
enum CacheTrim {
    /// Trims `directory` to `limitBytes`, never removing `namespace`. Returns a line to tell the
    /// person when namespaces were removed or the folder stays over its limit, else nil.
    static func run(directory: String, keeping namespace: String, limitBytes: Int, followLinks: Bool) -> String? {
        let folder = CacheDirectory(path: directory, followsSymbolicLinkedFolder: followLinks)
        let report: CacheDirectory.TrimReport
        do {
            report = try folder.trim(toBytes: limitBytes, keeping: [namespace]) { removed in
                CompanionFile.removeAll(of: removed, in: directory, followLinks: followLinks)
            }
        } catch {
            return "note: cannot keep the cache folder \(directory) under its limit: \(error)"
        }
        var parts: [String] = []
        let removed = report.removed.filter { $0.removedTables > 0 }
        if !removed.isEmpty {
            let freed = removed.reduce(0) { $0 + $1.freedBytes }
            parts.append(
                "removed the \(removed.count) least recently used namespace\(removed.count == 1 ? "" : "s") (\(Formatting.bytes(freed)))")
        }
        if report.bytesAfter > limitBytes {
            let busy = report.skippedInUse.isEmpty ? "" : " (\(report.skippedInUse.count) in use by other processes)"
            parts.append("it still holds \(Formatting.bytes(report.bytesAfter))\(busy)")
        }
        guard !parts.isEmpty else { return nil }
        return "cache folder \(directory) over its limit of \(Formatting.bytes(limitBytes)): " + parts.joined(separator: "; ")
    }
}
#endif
