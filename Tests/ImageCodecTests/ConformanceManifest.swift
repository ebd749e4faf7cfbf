import Foundation
import Testing

/// The public conformance corpora (`FIC_CONFORMANCE`, or `../shared/conformance` beside the
/// checkout, described in its `SOURCES.md`) and the Pillow references `scripts/conformance-refs`
/// makes of them (`FIC_CONFORMANCE_REFS`, or `.build/conformance-refs`).
enum Conformance {
    /// The suites, each a folder with a `MANIFEST.tsv`.
    static let suites = ["pngsuite", "webp-suite", "jpeg-suite"]

    /// The folder holding the suites.
    static let root: String = folder(environment: "FIC_CONFORMANCE", default: "../../../shared/conformance")

    /// The folder `scripts/conformance-refs` writes the references into.
    static let references: String = folder(environment: "FIC_CONFORMANCE_REFS", default: "../../.build/conformance-refs")

    private static func folder(environment name: String, default relative: String) -> String {
        if let override = ProcessInfo.processInfo.environment[name], !override.isEmpty { return override }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent(relative).standardizedFileURL.path
    }

    /// What a decoder is expected to do with a file (SOURCES.md).
    enum Kind: String, Sendable, CaseIterable {
        /// Decodes upright and matches a reference.
        case valid
        /// Is refused.
        case invalid
        /// Damaged: only a crash or a hang is a failure; whether it was accepted is reported.
        case corrupt
        /// Damaged, but browsers show it: decodes, and matches a stored reference where given.
        case lenient
        /// A legal variant no browser decodes: a refusal is reported, a decode must match.
        case optional
    }

    /// One row of a `MANIFEST.tsv`: file, class, stored reference (or `-`), note.
    struct Entry: Sendable, CustomTestStringConvertible {
        let suite: String
        let file: String
        /// The class as written, `nil` when it is none of ``Kind``'s (a test reports those).
        let kind: Kind?
        let kindName: String
        /// A file of `<suite>-refs/`, or `nil`.
        let storedReference: String?
        let note: String

        var testDescription: String { "\(suite)/\(file) [\(kindName)]" }

        /// The file's absolute path.
        var path: String { Conformance.root + "/" + suite + "/" + file }
    }

    /// The rows of one suite's manifest (empty when it cannot be read; a test checks that it can).
    static func entries(_ suite: String) -> [Entry] {
        manifests[suite] ?? []
    }

    /// Every suite's rows, read once.
    private static let manifests: [String: [Entry]] = Dictionary(uniqueKeysWithValues: suites.map { ($0, read($0)) })

    private static func read(_ suite: String) -> [Entry] {
        guard let text = try? String(contentsOfFile: root + "/" + suite + "/MANIFEST.tsv", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2, !fields[0].isEmpty else { return nil }
            let stored = fields.count > 2 && fields[2] != "-" && !fields[2].isEmpty ? fields[2] : nil
            return Entry(
                suite: suite, file: fields[0], kind: Kind(rawValue: fields[1]), kindName: fields[1],
                storedReference: stored, note: fields.count > 3 ? fields[3] : "")
        }
    }
}
