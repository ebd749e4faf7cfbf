import FICTestSupport
import FastImageCache
import Foundation
import ImageCodec
import Testing

/// `fic ingest --jobs`: the same results in the same order as one at a time, and memory that
/// stays flat and within a budget however many large photos pass through.
@Suite("parallel ingest")
struct ParallelIngestTests {
    static let formats = [
        "--format", "thumb:75x75@2:rgb565", "--format", "medium:100x100@2:bgrx", "--format", "large:150x150@2:bgra", "--family", "photos"
    ]

    /// Stderr without the progress bar and timing, in order.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    @Test("--jobs 4 reports every file, in file order, with the exit status of --jobs 1")
    func orderAndStatusAreKept() throws {
        let folder = try TemporaryFolder()
        let source = try folder.linkTestdata(["photos", "jpeg", "png", "webp", "bad"], into: "source")
        let serial = try Fic.run(["ingest", source, "--cache", folder.path("serial"), "--jobs", "1"] + Self.formats)
        let parallel = try Fic.run(["ingest", source, "--cache", folder.path("parallel"), "--jobs", "4"] + Self.formats)
        #expect(serial.status == 1 && parallel.status == 1)
        #expect(Self.lines(parallel.stderr) == Self.lines(serial.stderr))
        #expect(Self.lines(parallel.stderr).filter { $0.contains("refused") }.count == badFiles.count)
        // The one-line summaries agree but for the time taken.
        let summary = { (s: String) in s.replacingOccurrences(of: #"in [0-9.]+ s"#, with: "", options: .regularExpression) }
        #expect(summary(parallel.stdout) == summary(serial.stdout))
        let again = try Fic.run(["ingest", source, "--cache", folder.path("parallel"), "--jobs", "4"])
        #expect(again.stdout.contains("0 added"))
    }

    @Test("--jobs and --memory are checked")
    func badOptionsAreUsageErrors() throws {
        for arguments in [["--jobs", "0"], ["--jobs", "100000"], ["--memory", "0"], ["--memory", "200", "--low-memory"]] {
            let run = try Fic.run(["ingest", Fic.testdata + "/photos", "--cache", "/tmp/unused"] + arguments + Self.formats)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
        }
    }

    @Test("recoverable JPEG damage is ingested with a warning naming the file")
    func warningsAreReported() throws {
        let folder = try TemporaryFolder()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fic.testdata + "/photos/coffee.jpg")))
        bytes = Array("junk!".utf8) + bytes
        try FileManager.default.createDirectory(atPath: folder.path("in"), withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder.path("in/coffee.jpg")))
        let run = try Fic.run(["ingest", folder.path("in"), "--cache", folder.path("cache")] + Self.formats)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: coffee.jpg: 5 bytes of junk"), "\(run.stderr)")
        #expect(run.stdout.contains("1 added"))
    }

    /// A few hundred 5120×2880 photographs (links to baseline and progressive JPEGs made here from
    /// the bundled photos): the peak memory of `fic ingest` stays under the issue's target, and
    /// within what the budget for decodes in flight allows above the peak of ingesting one small
    /// photo, however many files pass through.
    @Test("a few hundred large photos ingest in bounded, flat memory", .timeLimit(.minutes(10)))
    func memoryIsFlatInTheCount() throws {
        guard let cjpeg = ["/usr/bin/cjpeg", "/usr/local/bin/cjpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            Issue.record("cjpeg is missing: run scripts/install-deps (libjpeg-turbo-progs)")
            return
        }
        let folder = try TemporaryFolder()
        var originals: [String] = []
        for (photo, progressive) in [("hubble.jpg", false), ("retina.jpg", true), ("rocket.jpg", false), ("astronaut.jpg", true)] {
            originals.append(
                try LargeJPEG.make(
                    from: Fic.testdata + "/photos/" + photo, width: 5120, height: 2880, progressive: progressive, cjpeg: cjpeg,
                    in: folder.path("")))
        }
        try FileManager.default.createDirectory(atPath: folder.path("many"), withIntermediateDirectories: true)
        for index in 0..<240 {
            try FileManager.default.createSymbolicLink(
                atPath: folder.path("many") + String(format: "/photo-%04d.jpg", index),
                withDestinationPath: originals[index % originals.count])
        }
        let budget = 96
        let tiny = try Fic.run(
            ["ingest", Fic.testdata + "/photos/chelsea.jpg", "--cache", folder.path("cache-tiny"), "--report-memory"] + Self.formats)
        let many = try Fic.run(
            ["ingest", folder.path("many"), "--cache", folder.path("cache-many"), "--jobs", "2", "--memory", "\(budget)", "--report-memory"]
                + Self.formats)
        #expect(tiny.status == 0 && many.status == 0)
        #expect(many.stdout.contains("240 added"), "\(many.stdout)")
        let mib = 1 << 20
        let basePeak = try Self.peak(tiny.stdout), peak = try Self.peak(many.stdout)
        // Measured here (VmHWM, debug build): one small photo 36.5 MiB; 240 large ones 131–134 MiB,
        // as much as 80 of them reach when two progressive decodes (~48 MiB each) happen to overlap.
        #expect(peak < 150 * mib, "peak RSS \(peak / mib) MiB")
        // What may be in flight, plus the bounded pool of freed buffers kept for reuse (16 MiB).
        #expect(peak <= basePeak + (budget + 16) * mib, "peak RSS \(peak / mib) MiB over a base of \(basePeak / mib) MiB")
    }

    /// The peak `fic ingest --report-memory` printed, in bytes. (The kernel's `ru_maxrss` of a
    /// child would not do: it keeps the test process's own peak across `exec`.)
    static func peak(_ output: String) throws -> Int {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("peak resident memory: ") }, "no peak in \(output)")
        return try #require(Int(line.dropFirst("peak resident memory: ".count).filter(\.isNumber))) * 1024
    }
}

/// Large JPEGs made at test time: a bundled photo mirrored and tiled, encoded with cjpeg.
enum LargeJPEG {
    static func make(from photo: String, width: Int, height: Int, progressive: Bool, cjpeg: String, in folder: String) throws -> String {
        let tile = try ImageDecoder.decode(contentsOf: photo)
        var ppm = [UInt8]("P6\n\(width) \(height)\n255\n".utf8)
        ppm.reserveCapacity(ppm.count + width * height * 3)
        tile.withUnsafeBytes { pixels in
            var row = [UInt8](repeating: 0, count: width * 3)
            for y in 0..<height {
                let ty = (y / tile.height) % 2 == 0 ? y % tile.height : tile.height - 1 - y % tile.height
                let base = ty * tile.bytesPerRow
                row.withUnsafeMutableBufferPointer { out in
                    for x in 0..<width {
                        let tx = (x / tile.width) % 2 == 0 ? x % tile.width : tile.width - 1 - x % tile.width
                        out[x * 3] = pixels[base + tx * 4 + 2]
                        out[x * 3 + 1] = pixels[base + tx * 4 + 1]
                        out[x * 3 + 2] = pixels[base + tx * 4]
                    }
                }
                ppm += row
            }
        }
        let name = (photo as NSString).lastPathComponent + (progressive ? "-progressive" : "")
        let ppmPath = folder + "/" + name + ".ppm", jpegPath = folder + "/" + name + ".jpg"
        try Data(ppm).write(to: URL(fileURLWithPath: ppmPath))
        defer { try? FileManager.default.removeItem(atPath: ppmPath) }
        try ExternalTools.run(cjpeg, ["-quality", "90"] + (progressive ? ["-progressive"] : []) + ["-outfile", jpegPath, ppmPath])
        return jpegPath
    }
}
