import FastImageCache
import Foundation
import Glibc
import Testing

/// `fic ingest --jobs`: the same results in the same order as one at a time, and memory that
/// stays flat and within a budget however many large photos pass through.
@Suite("parallel ingest")
struct ParallelIngestTests {
    static let formats = ["--format", "thumb:75x75@2:rgb565", "--format", "medium:100x100@2:bgrx", "--format", "large:150x150@2:bgra", "--family", "photos"]

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
        for arguments in [["--jobs", "0"], ["--jobs", "100000"], ["--memory", "0"]] {
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
    /// the bundled photos): the peak memory of `fic ingest` stays within the budget measured for
    /// it, and within a few MiB of the peak with far fewer files.
    @Test("a few hundred large photos ingest in flat memory", .timeLimit(.minutes(10)))
    func memoryIsFlatInTheCount() throws {
        guard let cjpeg = ["/usr/bin/cjpeg", "/usr/local/bin/cjpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("cjpeg is missing: run scripts/install-deps (libjpeg-turbo-progs)")
            return
        }
        let folder = try TemporaryFolder()
        var originals: [String] = []
        for (photo, progressive) in [("hubble.jpg", false), ("retina.jpg", true), ("rocket.jpg", false), ("astronaut.jpg", true)] {
            originals.append(try LargeJPEG.make(from: Fic.testdata + "/photos/" + photo, width: 5120, height: 2880, progressive: progressive, cjpeg: cjpeg, in: folder.path("")))
        }
        func linkFolder(_ name: String, count: Int) throws -> String {
            let path = folder.path(name)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for index in 0..<count {
                try FileManager.default.createSymbolicLink(atPath: path + String(format: "/photo-%04d.jpg", index), withDestinationPath: originals[index % originals.count])
            }
            return path
        }
        let few = try linkFolder("few", count: 24), many = try linkFolder("many", count: 240)
        let small = try MeasuredRun.fic(["ingest", few, "--cache", folder.path("cache-few"), "--jobs", "2", "--memory", "96"] + Self.formats)
        let large = try MeasuredRun.fic(["ingest", many, "--cache", folder.path("cache-many"), "--jobs", "2", "--memory", "96"] + Self.formats)
        #expect(small.status == 0 && large.status == 0)
        #expect(small.stdout.contains("24 added") && large.stdout.contains("240 added"), "\(large.stdout)")
        let mib = 1 << 20
        // Measured: 24 files ~93 MiB, 240 files ~95 MiB (debug build, two decodes in flight, a 96 MiB budget).
        #expect(large.peakRSSBytes < 140 * mib, "peak RSS \(large.peakRSSBytes / mib) MiB")
        #expect(large.peakRSSBytes <= small.peakRSSBytes + 12 * mib, "peak RSS grew from \(small.peakRSSBytes / mib) MiB to \(large.peakRSSBytes / mib) MiB")
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cjpeg)
        process.arguments = ["-quality", "90"] + (progressive ? ["-progressive"] : []) + ["-outfile", jpegPath, ppmPath]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cjpeg failed")
        return jpegPath
    }
}

/// The `fic` binary run with its peak resident set measured by the kernel (`wait4`).
struct MeasuredRun {
    let status: Int32
    let stdout: String
    let peakRSSBytes: Int

    static func fic(_ arguments: [String]) throws -> MeasuredRun {
        let binary = try #require(Fic.binary, "the fic binary was not found next to the test bundle; set FIC_BINARY")
        let scratch = try TemporaryFolder()
        let outPath = scratch.path("stdout")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        try #require(posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
        return MeasuredRun(status: exit, stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "", peakRSSBytes: Int(usage.ru_maxrss) * 1024)
    }
}
