import FICCore
import FICHarness
import FICTestSupport
import Foundation
import Testing
import TileServer

/// Mutation fuzzing of request paths through the whole server (route, name, IIIF parameters,
/// rendering), seeded with valid requests of every kind: every answer is a success, a redirect or
/// a 4xx with a reason — never a 500, a crash or an Address Sanitizer report — and no answer is
/// larger than the limits allow. A fixed number of requests from a seed it prints
/// (`FIC_FUZZ_SEED` replays one); scripts/test runs it under Address Sanitizer, and `scripts/fuzz
/// route` searches the same parser by coverage.
@Suite struct TileServerFuzzTests {
    @Test func pathsSurviveMutation() async throws {
        var options = TileServerOptions()
        // Small limits, so that the largest answers stay quick under Address Sanitizer.
        options.limits = IIIFLimits(maxWidth: 600, maxHeight: 600, maxArea: 200_000)
        let store = try PatternStore(options: options)
        let seeds = [
            "/iiif/3/pattern/info.json", "/iiif/3/pattern", "/iiif/3/pattern/full/max/0/default.jpg",
            "/iiif/3/pattern/pct:10.5,20,30,40/!200,100/!90/gray.png", "/iiif/3/pattern/square/,64/270/bitonal.webp",
            "/iiif/3/pattern/1280,768,256,256/256,256/0/default.jpg", "/iiif/3/pattern/0,0,1500,1100/pct:5/180/color.jpg",
            "/dzi/pattern.dzi", "/dzi/pattern_files/11/5_4.jpg", "/dzi/pattern_files/3/0_0.jpg", "/view/pattern", "/"
        ]
        let pieces = [
            "/", ",", ".", "%", "%2F", "%2e%2e", "..", "!", "^", "pct:", "max", "full", "0", "-1", "99999999999", "1e9",
            "4294967296", "65536", "0.0001", "360", "90", "_files", ".dzi", "info.json", "pattern", "\u{0}", "é", "%00", "%ff"
        ]
        var random = SplitMix64(seed: FuzzSeed.value(for: "Fuzz tile server paths", default: 0x5345_5256))
        var statuses: [Int: Int] = [:]
        for _ in 0..<400 {
            var path = Array(seeds.randomElement(using: &random)!.unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0...path.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: path.insert(contentsOf: pieces.randomElement(using: &random)!.unicodeScalars, at: at)
                case 1: if at < path.count { path.remove(at: at) }
                case 2: if at < path.count { path[at] = Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random)) }
                default:
                    // A number replaced by another.
                    if let digit = path[min(at, path.count)...].firstIndex(where: { $0.properties.numericType != nil }) {
                        let end = path[digit...].firstIndex { $0.properties.numericType == nil } ?? path.count
                        path.replaceSubrange(digit..<end, with: pieces.randomElement(using: &random)!.unicodeScalars)
                    }
                }
            }
            let text = String(String.UnicodeScalarView(path))
            let answer = await store.get(text)
            statuses[answer.status, default: 0] += 1
            #expect(
                [200, 303, 304, 400, 404].contains(answer.status),
                "\(text) → \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
            if answer.status >= 400 { #expect(!answer.body.isEmpty, "a refusal says why: \(text)") }
            if answer.status == 200, answer.header("Content-Type")?.hasPrefix("image/") == true {
                #expect(answer.body.count < 2 << 20, "\(text): \(answer.body.count) bytes")
            }
        }
        print("Fuzz tile server paths: 400 requests, statuses \(statuses.sorted { $0.key < $1.key })")
        // The mutations reach past the router: some still render, some are refused, some name nothing.
        #expect(statuses[200, default: 0] > 0 && statuses[400, default: 0] > 0 && statuses[404, default: 0] > 0)
    }
}
