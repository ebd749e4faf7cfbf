import Foundation
import Synchronization

/// Collects what became of each conformance file and prints a suite's summary — files per class,
/// corrupt files accepted, optional files refused, failures — once every file of the suite has
/// been checked.
enum ConformanceSummary {
    private static let outcomes = Mutex<[String: [(entry: Conformance.Entry, outcome: ConformanceOutcome)]]>([:])

    /// Records `outcome`; prints the summary of `entry`'s suite when it was the last file.
    static func record(_ entry: Conformance.Entry, _ outcome: ConformanceOutcome) {
        let total = Conformance.entries(entry.suite).count
        let complete = outcomes.withLock { all in
            all[entry.suite, default: []].append((entry, outcome))
            return all[entry.suite]!.count == total ? all[entry.suite]! : nil
        }
        if let complete {
            print(text(entry.suite, complete))
            // Before Swift Testing's own lines, when both go to one pipe. All streams (nil): naming
            // `stdout`, a C global, is an error under strict concurrency.
            fflush(nil)
        }
    }

    /// The summary of one suite.
    static func text(_ suite: String, _ results: [(entry: Conformance.Entry, outcome: ConformanceOutcome)]) -> String {
        var lines = ["Conformance summary, \(suite) (\(results.count) files):"]
        var failures: [String] = []
        for kind in Conformance.Kind.allCases {
            let ofKind = results.filter { $0.entry.kind == kind }.sorted { $0.entry.file < $1.entry.file }
            guard !ofKind.isEmpty else { continue }
            var matched = 0, decoded = 0, failed = 0
            var accepted: [String] = []
            var matchedAgainst: [ConformanceReferences.Kind: Int] = [:]
            var lowest: (psnr: Double, file: String, reference: String)?
            var refused: [String] = []
            for (entry, outcome) in ofKind {
                switch outcome {
                case .matched(let psnr, let referenceKind, let name):
                    matched += 1
                    matchedAgainst[referenceKind, default: 0] += 1
                    if lowest == nil || psnr < lowest!.psnr { lowest = (psnr, entry.file, name) }
                case .decoded(let psnr, let reference):
                    decoded += 1
                    if let psnr, lowest == nil || psnr < lowest!.psnr { lowest = (psnr, entry.file, reference) }
                case .accepted: accepted.append(entry.file)
                case .refused: refused.append(entry.file)
                case .failed(let reason):
                    failed += 1
                    failures.append("  ✘ \(entry.file) [\(kind.rawValue)]: \(reason)")
                }
            }
            // Which reference each decode came closest to: whether the decoder converted the
            // colours files declare (see ConformanceReferences).
            let against = ConformanceReferences.Kind.allCases.compactMap { reference in
                matchedAgainst[reference].map { "\($0) against \(reference.label)" }
            }
            let matchedText = "\(matched) matched" + (against.isEmpty ? "" : " (\(against.joined(separator: ", ")))")
            var parts: [String] = []
            switch kind {
            case .valid: parts.append(matchedText)
            case .invalid: parts.append("\(refused.count) refused")
            case .corrupt:
                parts.append("\(ofKind.count - failed) ended normally (\(accepted.count) accepted, \(refused.count) refused)")
                if !accepted.isEmpty { parts.append("accepted: \(accepted.joined(separator: ", "))") }
            case .lenient:
                parts.append("\(decoded + matched) decoded" + (matched > 0 ? "; of those with a stored reference, \(matchedText)" : ""))
            case .optional:
                parts.append("\(matched) decoded and matched" + (against.isEmpty ? "" : " (\(against.joined(separator: ", ")))"))
                if !refused.isEmpty { parts.append("\(refused.count) refused: \(refused.joined(separator: ", "))") }
            }
            if let lowest {
                parts.append(
                    lowest.psnr.isInfinite
                        ? "each identical to a reference"
                        : "lowest PSNR \(ConformanceCheck.decibels(lowest.psnr)) (\(lowest.file) against \(lowest.reference))")
            }
            if failed > 0 { parts.append("\(failed) FAILED") }
            lines.append(
                "  \(kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(String(ofKind.count).leftPadded(4)): \(parts.joined(separator: "; "))"
            )
        }
        for (entry, outcome) in results where entry.kind == nil {
            if case .failed(let reason) = outcome { failures.append("  ✘ \(entry.file) [\(entry.kindName)]: \(reason)") }
        }
        return (lines + failures).joined(separator: "\n")
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
