#if Tool
import FICCommandLine
import Foundation

/// The `--urls FILE` list of `fic ingest` and of a network gallery: one `http`, `https` or `file` URL a line; blank
/// lines and lines starting with `#` are skipped. The file is input from outside: its size and
/// the number of URLs are bounded, and every refused line is named.
enum URLList {
    /// The largest list file read (64 MiB).
    static let maximumFileBytes = 64 << 20
    /// The most URLs a list may hold.
    static let maximumURLs = 1_000_000

    /// The URLs in the file at `path`, in order.
    ///
    /// - Throws: ``CLIError`` (usage status) when the file cannot be read, is too large, is not
    ///   UTF-8, holds a line that is not such a URL (with its line number), or no URL at all.
    static func read(_ path: String) throws -> [URL] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue else {
            throw CLIError("cannot read the URL list \(path): no such file", status: ExitStatus.usage)
        }
        guard size <= maximumFileBytes else {
            throw CLIError(
                "the URL list \(path) is \(size) bytes; at most \(maximumFileBytes) are read: split it", status: ExitStatus.usage)
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("cannot read the URL list \(path): \(error.localizedDescription)", status: ExitStatus.usage)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError("the URL list \(path) is not UTF-8 text", status: ExitStatus.usage)
        }
        return try parse(text, name: path)
    }

    /// The URLs in `text` (named `name` in messages).
    static func parse(_ text: String, name: String) throws -> [URL] {
        var urls: [URL] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            func bad(_ why: String) -> CLIError {
                CLIError("\(name) line \(index + 1): \(why)", status: ExitStatus.usage)
            }
            guard line.utf8.count <= 8192 else { throw bad("the line is \(line.utf8.count) bytes long; a URL may have at most 8192") }
            guard let url = URL(string: line), let scheme = url.scheme?.lowercased() else {
                throw bad("'\(line.prefix(200))' is not a URL; give one http, https or file URL a line")
            }
            switch scheme {
            case "http", "https":
                guard let host = url.host, !host.isEmpty else { throw bad("'\(line.prefix(200))' has no host") }
            case "file":
                guard !url.path.isEmpty, url.path != "/" else { throw bad("'\(line.prefix(200))' names no file") }
            default:
                throw bad("'\(scheme)' URLs cannot be loaded; give http, https or file URLs")
            }
            guard urls.count < maximumURLs else { throw bad("more than \(maximumURLs) URLs; split the list") }
            urls.append(url)
        }
        guard !urls.isEmpty else {
            throw CLIError(
                "the URL list \(name) holds no URL (one http, https or file URL a line; # starts a comment)", status: ExitStatus.usage)
        }
        return urls
    }
}
#endif
