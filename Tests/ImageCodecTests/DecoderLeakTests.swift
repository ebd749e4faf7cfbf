import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// What a decoder's library hands over on a path that refuses a value is freed: LeakSanitizer
/// accounts for it (these tests run in scripts/test's LeakSanitizer step).
@Suite struct DecoderLeakTests {
    /// libheif 1.15 hands over an nclx colour profile even when it refuses one of its code points
    /// (colour primaries 99, which no standard defines), returning an error beside it: the profile
    /// was never freed, 52 bytes a file, in `info` and `decode` (found by the `decode` fuzzer).
    @Test(.enabled(if: LeakCheck.isAvailable, "runs under Address Sanitizer (scripts/test's sanitizer runs)"))
    func anNCLXProfileWithUnknownCodePointsIsFreed() throws {
        let path = try HEIFTestFiles.avifenc("nclx-99.avif", source: try HEIFTestFiles.sourcePNG("coffee", 64, 64), ["-y", "444"])
        var bytes = try HEIFTestFiles.bytes(path)
        // The `colr` box's nclx: its colour primaries, the 2 bytes after the type, set to 99.
        let nclx = Array("nclx".utf8)
        let at = try #require((0..<(bytes.count - 6)).first { Array(bytes[$0..<($0 + 4)]) == nclx }, "no nclx colr box")
        bytes[at + 4] = 0
        bytes[at + 5] = 99
        // The value reached libheif, which refused it: the file is read as untagged.
        #expect(try ImageDecoder.info(bytes).color == .untagged)
        for _ in 0..<3 { _ = try? ImageDecoder.decode(bytes) }
        #expect(LeakCheck.findsLeaks() == false, "LeakSanitizer's report is on stderr")
    }
}
