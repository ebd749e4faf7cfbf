import FICHarness
import FICTestSupport
import Foundation
import ImageCodec

/// What became of one conformance file.
enum ConformanceOutcome: Sendable {
    /// Decoded and matched a reference: the best PSNR, and the reference it was reached against.
    case matched(psnr: Double, kind: ConformanceReferences.Kind, reference: String)
    /// A lenient file without a stored reference decoded: its PSNR against the closest of Pillow's
    /// renderings, for the record (`nil` when Pillow cannot read it).
    case decoded(psnr: Double?, reference: String)
    /// Refused, as an invalid file must be and a corrupt or optional one may be (the reason).
    case refused(String)
    /// A corrupt file decoded.
    case accepted
    /// What its class asks did not happen (the reason).
    case failed(String)
}

/// Checks one file of a conformance suite as its class says (see ``Conformance/Kind``), with the
/// package's default decoding options. Damaged and invalid files, and optional ones, are first
/// decoded by `fic decode` in a child process with a time limit, so that a crash or a hang is
/// named instead of taking the test run down; only when the child ended normally are they
/// decoded in this process.
enum ConformanceCheck {
    /// A decode matches a reference at this PSNR (on grey 128) or more.
    static let threshold = 35.0
    /// A child decode still running after this is a hang.
    static let hangLimit: Duration = .seconds(60)

    /// Checks `entry` and returns what became of it (``ConformanceOutcome/failed(_:)`` with the
    /// reason when its class's promise is not kept). Blocks the calling thread while it decodes
    /// and while the child runs.
    static func check(_ entry: Conformance.Entry) -> ConformanceOutcome {
        do {
            return try outcome(entry)
        } catch {
            return .failed("\(error)")
        }
    }

    private static func outcome(_ entry: Conformance.Entry) throws -> ConformanceOutcome {
        guard let kind = entry.kind else {
            throw ConformanceFailure("unknown class '\(entry.kindName)' in \(entry.suite)/MANIFEST.tsv")
        }
        if kind == .valid {
            let bytes = try ImageBytes(contentsOf: entry.path)
            let decoded: DecodedImage
            do {
                decoded = try ImageDecoder.decode(bytes, options: DecodingOptions())
            } catch {
                throw ConformanceFailure("refused: \(try message(of: error))")
            }
            return try match(decoded, try ConformanceReferences(for: entry))
        }
        let child = try decodeInChild(entry)
        if kind == .corrupt {
            return child.ending == .exited(0) ? .accepted : .refused(child.reason)
        }
        let bytes = try ImageBytes(contentsOf: entry.path)
        let result = Result { try ImageDecoder.decode(bytes, options: DecodingOptions()) }
        if case .success = result, child.ending != .exited(0) {
            throw ConformanceFailure("the library decodes it, but fic decode \(child.ending): \(child.reason)")
        }
        if case .failure(let error) = result, child.ending == .exited(0) {
            throw ConformanceFailure("fic decode decodes it, but the library refuses it: \(error)")
        }
        switch (kind, result) {
        case (.invalid, .success(let decoded)):
            throw ConformanceFailure("decoded (\(decoded.width)×\(decoded.height)); an invalid file must be refused")
        case (.invalid, .failure(let error)), (.optional, .failure(let error)):
            return .refused(try message(of: error))
        case (.lenient, .failure(let error)):
            throw ConformanceFailure("refused with the default options: \(try message(of: error))")
        case (.lenient, .success(let decoded)) where entry.storedReference == nil:
            return try recovered(decoded, try ConformanceReferences(for: entry))
        default:
            return try match(try result.get(), try ConformanceReferences(for: entry))
        }
    }

    /// The message of a refusal, which must be an ``ImageCacheError``.
    private static func message(of error: any Error) throws -> String {
        guard let error = error as? ImageCacheError else {
            throw ConformanceFailure("refused with \(type(of: error)) instead of an ImageCacheError: \(error)")
        }
        return "\(error.code): \(error.message)"
    }

    /// The decode must be upright and match one of the references.
    private static func match(_ decoded: DecodedImage, _ references: ConformanceReferences) throws -> ConformanceOutcome {
        guard decoded.isOrientationApplied else { throw ConformanceFailure("decoded, but not upright") }
        let comparisons = references.compare(decoded)
        guard !comparisons.isEmpty else {
            throw ConformanceFailure("no reference: Pillow cannot read it (\(references.pillowRefusal ?? "?")) and none is stored")
        }
        // The closest reference decides: with colours converted or as stored, whichever the
        // decoder did (see ConformanceReferences).
        if let best = closest(comparisons), best.psnr! >= threshold {
            return .matched(psnr: best.psnr!, kind: best.kind, reference: best.name)
        }
        let results = comparisons.map { $0.problem ?? "PSNR \(decibels($0.psnr!)) against \($0.name) (\(decibels(threshold)) needed)" }
        throw ConformanceFailure("does not match: \(results.joined(separator: "; "))")
    }

    /// A lenient file's decode without a stored reference: it must have Pillow's size; how close
    /// its recovered pixels come to Pillow's closest rendering is reported.
    private static func recovered(_ decoded: DecodedImage, _ references: ConformanceReferences) throws -> ConformanceOutcome {
        guard decoded.isOrientationApplied else { throw ConformanceFailure("decoded, but not upright") }
        let comparisons = references.compare(decoded)
        guard !comparisons.isEmpty else { return .decoded(psnr: nil, reference: "Pillow") }
        guard let best = closest(comparisons) else { throw ConformanceFailure(comparisons[0].problem!) }
        return .decoded(psnr: best.psnr, reference: best.name)
    }

    /// The comparison with the highest PSNR, `nil` when none could be made (other sizes).
    private static func closest(_ comparisons: [ConformanceReferences.Comparison]) -> ConformanceReferences.Comparison? {
        comparisons.filter { $0.psnr != nil }.max { $0.psnr! < $1.psnr! }
    }

    static func decibels(_ psnr: Double) -> String {
        psnr.isInfinite ? "∞ dB" : String(format: "%.1f dB", psnr)
    }

    /// How the child decode ended, and the last line of what it said.
    struct ChildDecode {
        let ending: ChildProcess.Ending
        let reason: String
    }

    /// Runs `fic decode FILE --out /dev/null`; a signal, a hang or an exit status other than 0
    /// (decoded), 1 (refused) or 2 (usage) is a failure. Under Address Sanitizer a memory error
    /// aborts the child (a signal) rather than exiting with status 1, which would read as a refusal.
    private static func decodeInChild(_ entry: Conformance.Entry) throws -> ChildDecode {
        guard let fic = FicExecutable.path else {
            throw ConformanceFailure("fic was not found beside the test bundle (swift build --build-tests builds it; or set FIC_BINARY)")
        }
        let sanitizer = [ProcessInfo.processInfo.environment["ASAN_OPTIONS"], "abort_on_error=1:detect_leaks=0"]
        let run = try ChildProcess.run(
            fic, ["decode", entry.path, "--out", "/dev/null"],
            extraEnvironment: ["ASAN_OPTIONS": sanitizer.compactMap { $0 }.joined(separator: ":")],
            timeout: hangLimit)
        let lines = run.standardError.split(separator: "\n").map(String.init)
        switch run.ending {
        case .exited(0), .exited(1), .exited(2):
            return ChildDecode(ending: run.ending, reason: lines.last ?? "")
        default:
            let said = lines.isEmpty ? "" : "; it said: " + lines.suffix(3).joined(separator: " / ")
            throw ConformanceFailure("fic decode \(run.ending)\(said)")
        }
    }
}
