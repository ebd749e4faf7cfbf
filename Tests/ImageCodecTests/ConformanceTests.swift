import FICTestSupport
import Foundation
import Testing

/// The public conformance suites (PngSuite, libwebp's and others' WebP files, JPEG crash and
/// reference tests; see `../shared/conformance/SOURCES.md`), each file checked as its class says
/// against Pillow's decode, as stored and in sRGB (`scripts/conformance-refs`), and the suite's
/// stored references (``ConformanceReferences``). A failure names the file, its class and the
/// reason (the decoder's error, or the PSNR); each suite prints a summary when its last file is
/// done. Each test checks its files one at a time, each on a thread of its own (decoding and
/// waiting for the child decode block it), so that at most one child decode per test runs at
/// once and Swift's cooperative pool stays free.
@Suite("Conformance suites") struct ConformanceTests {
    @Test func manifestsAndReferencesArePresent() {
        for suite in Conformance.suites {
            let entries = Conformance.entries(suite)
            #expect(entries.count >= 100, "\(Conformance.root)/\(suite)/MANIFEST.tsv lists \(entries.count) files (set FIC_CONFORMANCE)")
            for entry in entries {
                #expect(entry.kind != nil, "\(entry.testDescription): unknown class")
                #expect(FileManager.default.fileExists(atPath: entry.path), "\(entry.testDescription): the file is missing")
            }
        }
        #expect(
            FileManager.default.fileExists(atPath: Conformance.references + "/STAMP"),
            "no references in \(Conformance.references): run scripts/conformance-refs (scripts/test runs it)")
    }

    @Test(.serialized, arguments: Conformance.entries("pngsuite"))
    func pngsuite(_ entry: Conformance.Entry) async throws {
        try await Self.check(entry)
    }

    @Test(.serialized, arguments: Conformance.entries("webp-suite"))
    func webpSuite(_ entry: Conformance.Entry) async throws {
        try await Self.check(entry)
    }

    @Test(.serialized, arguments: Conformance.entries("jpeg-suite"))
    func jpegSuite(_ entry: Conformance.Entry) async throws {
        try await Self.check(entry)
    }

    /// Checks `entry`, records its outcome for the summary, and fails with the reason.
    private static func check(_ entry: Conformance.Entry) async throws {
        let outcome = await OwnThread.run { ConformanceCheck.check(entry) }
        ConformanceSummary.record(entry, outcome)
        if case .failed(let reason) = outcome {
            throw ConformanceFailure("\(entry.testDescription): \(reason)" + (entry.note.isEmpty ? "" : " (\(entry.note))"))
        }
    }
}
