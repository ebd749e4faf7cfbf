import FICHarness
import Foundation
import Glibc
import ImageCodec

/// What ``FormatsBenchmark`` measured.
public struct FormatsBenchmarkResult: Codable, Sendable {
    /// A timed pair: the same work on untagged and on colour-profiled inputs.
    public struct TaggedComparison: Codable, Sendable {
        /// What was timed.
        public var what: String
        /// Best seconds of the untagged inputs.
        public var untaggedSeconds: Double
        /// Best seconds of the same inputs tagged with the profile.
        public var taggedSeconds: Double
        /// `tagged / untagged`.
        public var ratio: Double
    }

    /// `fic tile` of a huge tiled BigTIFF against `vips tiffsave --tile --pyramid`.
    public struct BigTIFFComparison: Codable, Sendable {
        /// Width and height of the TIFF.
        public var width: Int
        public var height: Int
        /// `fic tile`: best seconds and peak RSS.
        public var ficSeconds: Double
        public var ficPeakRSSBytes: Int
        /// `vips tiffsave --tile --pyramid --compression none` of the same file.
        public var vipsSeconds: Double?
        public var vipsPeakRSSBytes: Int?
    }

    /// `fic ingest` (its default memory budget) against `vipsthumbnail`, one entry per format.
    public var ingest: [IngestFormatResult]
    /// HEIC and AVIF again with the small-memory setting (`--memory 96`); the vipsthumbnail
    /// figures are those of the same files in ``ingest``.
    public var smallMemoryIngest: [IngestFormatResult]
    /// The decoders alone on the same HEIC and AVIF files.
    public var decoderFloors: [DecoderFloor]
    /// Ingest of ProPhoto-tagged JPEGs against the same JPEGs untagged.
    public var taggedIngest: TaggedComparison?
    /// The 18000² pyramid of a ProPhoto-tagged JPEG against the same JPEG untagged.
    public var taggedPyramid: TaggedComparison?
    /// The tiled BigTIFF pyramid.
    public var bigTIFF: BigTIFFComparison?
    /// Peak RSS of `fic ingest` of many large HEICs, and of few.
    public var heicManyFiles: Int?
    public var heicManyPeakRSSBytes: Int?
    public var heicFewPeakRSSBytes: Int?
    /// Target name → met.
    public var targetsMet: [String: Bool]
    /// How the figures were taken, and what was skipped.
    public var notes: [String]
}

/// Every format a person has, measured on large generated photos: ingest of each new format
/// against `vipsthumbnail`, what a colour profile costs (ingest and an 18000² pyramid), a
/// 24000 × 16000 tiled BigTIFF turned into a pyramid against libvips, and memory over many HEICs.
public enum FormatsBenchmark {
    /// The targets, by name.
    public static let targets: [(name: String, text: String)] = [
        ("ingest_over_vips_ge_2", "fic ingest / vipsthumbnail ≥ 2 for JPEG XL (cjxl's and vips's), TIFF and GIF"),
        ("heic_avif_default_ge_1_8", "HEIC and AVIF, default memory budget: fic ingest / vipsthumbnail ≥ 1.8"),
        ("heic_avif_small_memory", "HEIC and AVIF, --memory 96: fic ingest / vipsthumbnail ≥ 1.0 and peak RSS < 150 MB"),
        ("tagged_ingest_le_1_1", "JPEG ingest, ProPhoto-tagged / untagged ≤ 1.1"),
        ("tagged_pyramid_le_1_3", "18000² pyramid, ProPhoto-tagged / untagged ≤ 1.3"),
        ("bigtiff_faster_than_vips", "tiled BigTIFF → pyramid faster than vips tiffsave --tile --pyramid"),
        ("bigtiff_peak_le_100mb", "tiled BigTIFF → pyramid peak RSS ≤ 100 MB"),
        ("heic_memory_flat_lt_150mb", "ingest of 500 large HEICs: peak RSS < 150 MB and flat in the count")
    ]

    /// The ICC profile the tagged inputs carry (Debian's colord-data).
    static let proPhotoProfile = "/usr/share/color/icc/colord/ProPhotoRGB.icc"

    /// Runs the benchmark with the `fic` executable at `fic`.
    public static func run(
        fic: String, testdata: String, workDirectory: String, options: IngestBenchmark.Options = .init(), heicMemoryCount: Int = 500,
        log: (String) -> Void
    ) throws -> FormatsBenchmarkResult {
        let root = (workDirectory as NSString).appendingPathComponent("formats")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let generated = (workDirectory as NSString).appendingPathComponent("large-photos")
        var notes: [String] = []
        let jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let vipsthumbnail = Executables.find("vipsthumbnail")

        // 1. Each new format against vipsthumbnail.
        // HEIC and AVIF spend ~90 % in one-core decoders: they run again with the small-memory
        // setting (one decode at a time), and the decoders' own tools run on the same files.
        var ingest: [IngestFormatResult] = [], smallMemoryIngest: [IngestFormatResult] = [], floors: [DecoderFloor] = []
        var heicOriginals: [String] = []
        let kinds = LargePhotoSet.Kind.formatKinds.filter { options.kinds?.contains($0.rawValue) ?? true }
        if let unknown = options.kinds?.subtracting(kinds.map(\.rawValue)), !unknown.isEmpty {
            throw BenchmarkError(
                "no kind of input named \(unknown.sorted().joined(separator: ", ")); the kinds are \(LargePhotoSet.Kind.formatKinds.map(\.rawValue).joined(separator: ", "))"
            )
        }
        for kind in kinds {
            do {
                let originals = try LargePhotoSet.originals(
                    kind, distinct: options.distinct, testdata: testdata, folder: generated, log: log)
                if kind == .heic { heicOriginals = originals }
                let files = try LargePhotoSet.linkFolder(
                    (root as NSString).appendingPathComponent("input-\(kind.rawValue)"), count: options.count, originals: originals)
                let result = try IngestBenchmark.compare(
                    kind: kind.rawValue, files: files, fic: fic, vipsthumbnail: vipsthumbnail, jobs: jobs, options: options, memory: nil,
                    root: root, log: log)
                ingest.append(result)
                guard DecoderFloor.tool(for: kind.rawValue) != nil else { continue }
                var small = try IngestBenchmark.compare(
                    kind: kind.rawValue, files: files, fic: fic, vipsthumbnail: nil, jobs: jobs, options: options,
                    memory: options.memoryBudgetMiB, root: root, log: log)
                small.takeVips(from: result)
                smallMemoryIngest.append(small)
                if let floor = try DecoderFloor.measure(
                    kind: kind.rawValue, files: files, jobs: jobs, runs: options.runs, root: root, log: log)
                {
                    floors.append(floor)
                }
            } catch {
                notes.append("\(kind.rawValue): skipped: \(error)")
                log("  \(kind.rawValue): skipped: \(error)")
            }
        }

        // 2. What a profile costs an ingest: the same JPEGs, with and without a ProPhoto profile.
        let everything = options.kinds == nil
        if !everything { notes.append("only the ingest of \(kinds.map(\.rawValue).joined(separator: ", ")) was measured (--kinds)") }
        var taggedIngest: FormatsBenchmarkResult.TaggedComparison?
        if everything, let profile = FileManager.default.contents(atPath: proPhotoProfile).map([UInt8].init) {
            let plain = try LargePhotoSet.originals(
                .jpegBaseline, distinct: options.distinct, testdata: testdata, folder: generated, log: log)
            let tagged = try plain.map { path -> String in
                let out = (root as NSString).appendingPathComponent("tagged-" + (path as NSString).lastPathComponent)
                try Data(JPEGProfiles.tagged(Array(try Data(contentsOf: URL(fileURLWithPath: path))), profile: profile)).write(
                    to: URL(fileURLWithPath: out))
                return out
            }
            let plainFiles = try LargePhotoSet.linkFolder(
                (root as NSString).appendingPathComponent("untagged"), count: options.count, originals: plain)
            let taggedFiles = try LargePhotoSet.linkFolder(
                (root as NSString).appendingPathComponent("tagged"), count: options.count, originals: tagged)
            func best(_ files: [String]) throws -> Double {
                var times: [Double] = []
                for run in 0...options.runs {
                    let measured = try IngestBenchmark.ingest(
                        fic: fic, folder: (files[0] as NSString).deletingLastPathComponent, count: files.count, jobs: jobs,
                        memory: options.memoryBudgetMiB, root: root)
                    if run > 0 { times.append(measured.seconds) }
                }
                return times.min()!
            }
            let u = try best(plainFiles), t = try best(taggedFiles)
            taggedIngest = .init(
                what:
                    "fic ingest of \(options.count) JPEGs (\(LargePhotoSet.Kind.jpegBaseline.size.width)×\(LargePhotoSet.Kind.jpegBaseline.size.height))",
                untaggedSeconds: u, taggedSeconds: t, ratio: t / u)
            log("  tagged JPEG ingest: \(BenchKit.fixed(t, 2)) s against \(BenchKit.fixed(u, 2)) s untagged (\(BenchKit.fixed(t / u, 2))×)")
        } else {
            notes.append(
                "\(proPhotoProfile) is missing (Debian: colord-data; scripts/install-deps --bench): the profile costs were not measured")
        }

        // 3. What a profile costs an 18000² pyramid: the same JPEG bytes with a ProPhoto APP2.
        var taggedPyramid: FormatsBenchmarkResult.TaggedComparison?
        if everything, let profile = FileManager.default.contents(atPath: proPhotoProfile).map([UInt8].init) {
            let side = TilesBenchmark.side
            let baseline = workDirectory + "/tiles-\(side)-baseline.jpg", progressive = workDirectory + "/tiles-\(side)-progressive.jpg"
            if !FileManager.default.fileExists(atPath: baseline) || !FileManager.default.fileExists(atPath: progressive) {
                try TilesBenchmark.makeJPEGs(
                    photo: testdata + "/hubble.jpg", fallback: testdata + "/photos/hubble.jpg", baseline: baseline,
                    progressive: progressive, workDirectory: workDirectory, log: log)
            }
            let tagged = root + "/tiles-\(side)-prophoto.jpg"
            try Data(JPEGProfiles.tagged(Array(try Data(contentsOf: URL(fileURLWithPath: baseline))), profile: profile)).write(
                to: URL(fileURLWithPath: tagged))
            defer { unlink(tagged) }
            let output = root + "/pyramid-\(getpid()).tif"
            defer { try? FileManager.default.removeItem(atPath: output) }
            func tile(_ input: String) throws -> Double {
                try TilesBenchmark.best(2) {
                    try? FileManager.default.removeItem(atPath: output)
                    sync()
                    return try MeasuredRun.run(fic, ["tile", input, "--out", output, "--compression", "none"]).figures
                }.seconds
            }
            let u = try tile(baseline), t = try tile(tagged)
            taggedPyramid = .init(what: "fic tile of a \(side)×\(side) baseline JPEG", untaggedSeconds: u, taggedSeconds: t, ratio: t / u)
            log(
                "  tagged \(side)² pyramid: \(BenchKit.fixed(t, 2)) s against \(BenchKit.fixed(u, 2)) s untagged (\(BenchKit.fixed(t / u, 2))×)"
            )
        }

        // 4. A 24000 × 16000 tiled BigTIFF into a pyramid, against libvips.
        var bigTIFF: FormatsBenchmarkResult.BigTIFFComparison?
        if everything, let vips = Executables.find("vips") {
            do {
                bigTIFF = try bigTIFFPyramid(fic: fic, vips: vips, testdata: testdata, root: root, log: log)
            } catch {
                notes.append("tiled BigTIFF: skipped: \(error)")
            }
        }

        // 5. Memory over many HEICs.
        var heicMany: MeasuredRun?, heicFew: MeasuredRun?
        if everything, !heicOriginals.isEmpty, heicMemoryCount > 0 {
            let few = try LargePhotoSet.linkFolder(
                (root as NSString).appendingPathComponent("heic-few"), count: min(options.count, heicMemoryCount), originals: heicOriginals)
            let many = try LargePhotoSet.linkFolder(
                (root as NSString).appendingPathComponent("heic-many"), count: heicMemoryCount, originals: heicOriginals)
            heicFew = try IngestBenchmark.ingest(
                fic: fic, folder: (few[0] as NSString).deletingLastPathComponent, count: few.count, jobs: jobs,
                memory: options.memoryBudgetMiB, root: root)
            heicMany = try IngestBenchmark.ingest(
                fic: fic, folder: (many[0] as NSString).deletingLastPathComponent, count: many.count, jobs: jobs,
                memory: options.memoryBudgetMiB, root: root)
            log(
                "  HEIC memory: \(few.count) files peak \(BenchKit.mebibytes(heicFew!.peakRSSBytes)), \(many.count) files peak \(BenchKit.mebibytes(heicMany!.peakRSSBytes))"
            )
        }

        var met: [String: Bool] = [:]
        let heifKinds = Set(DecoderFloor.tools.keys)
        let others = ingest.filter { !heifKinds.contains($0.kind) }.compactMap(\.ficOverVips)
        if !others.isEmpty, others.count == kinds.filter({ !heifKinds.contains($0.rawValue) }).count {
            met["ingest_over_vips_ge_2"] = others.allSatisfy { $0 >= 2 }
        }
        let heif = ingest.filter { heifKinds.contains($0.kind) }.compactMap(\.ficOverVips)
        if heif.count == heifKinds.count { met["heic_avif_default_ge_1_8"] = heif.allSatisfy { $0 >= 1.8 } }
        if smallMemoryIngest.count == heifKinds.count, smallMemoryIngest.allSatisfy({ $0.ficOverVips != nil }) {
            met["heic_avif_small_memory"] = smallMemoryIngest.allSatisfy { $0.ficOverVips! >= 1 && $0.ficPeakRSSBytes < 150_000_000 }
        }
        if let taggedIngest { met["tagged_ingest_le_1_1"] = taggedIngest.ratio <= 1.1 }
        if let taggedPyramid { met["tagged_pyramid_le_1_3"] = taggedPyramid.ratio <= 1.3 }
        if let bigTIFF {
            if let v = bigTIFF.vipsSeconds { met["bigtiff_faster_than_vips"] = bigTIFF.ficSeconds < v }
            met["bigtiff_peak_le_100mb"] = bigTIFF.ficPeakRSSBytes <= 100_000_000
        }
        if let heicMany, let heicFew {
            met["heic_memory_flat_lt_150mb"] =
                heicMany.peakRSSBytes < 150 << 20 && heicMany.peakRSSBytes <= heicFew.peakRSSBytes + (16 << 20)
        }
        notes.append(
            "inputs are camera-sized photos made from the test photos (mirror-tiled, not enlarged) and encoded with Debian's encoders: heif-enc -q 80 (x265), avifenc --min 20 --max 30 (aom), cjxl -d 1 and vips jxlsave (its default Q 75), vips tiffsave --compression deflate, vips gifsave; both sides are whole processes, as in fic-bench ingest"
        )
        notes.append(
            "the tagged inputs carry colord's ProPhoto RGB profile in APP2 markers inserted into the very same JPEG bytes: only the colour conversion differs"
        )
        return FormatsBenchmarkResult(
            ingest: ingest, smallMemoryIngest: smallMemoryIngest, decoderFloors: floors, taggedIngest: taggedIngest,
            taggedPyramid: taggedPyramid, bigTIFF: bigTIFF,
            heicManyFiles: heicMany == nil ? nil : heicMemoryCount, heicManyPeakRSSBytes: heicMany?.peakRSSBytes,
            heicFewPeakRSSBytes: heicFew?.peakRSSBytes,
            targetsMet: met, notes: notes)
    }

    /// Makes (once) a 24000 × 16000 tiled, deflate-compressed BigTIFF and times `fic tile` and
    /// `vips tiffsave --tile --pyramid --compression none` on it.
    static func bigTIFFPyramid(fic: String, vips: String, testdata: String, root: String, log: (String) -> Void) throws
        -> FormatsBenchmarkResult.BigTIFFComparison
    {
        let (width, height) = (24_000, 16_000)
        let tiff = (root as NSString).appendingPathComponent("big-\(width)x\(height).tif")
        if !FileManager.default.fileExists(atPath: tiff) {
            guard let photo = BenchKit.photos(in: testdata).last(where: { $0.hasSuffix(".jpg") }) else {
                throw BenchmarkError("no JPEG photo to make the BigTIFF from")
            }
            log("  making a \(width)×\(height) tiled BigTIFF from \((photo as NSString).lastPathComponent) …")
            let info = try ImageDecoder.info(try Data(contentsOf: URL(fileURLWithPath: photo)))
            let scale = max(Double(width) / Double(info.displayWidth), Double(height) / Double(info.displayHeight))
            let big = tiff + ".v"
            defer { unlink(big) }
            try BenchmarkProcess.run(vips, ["resize", photo, big, "\(scale)"])
            try BenchmarkProcess.run(
                vips,
                ["crop", big, tiff + "[tile,tile-width=256,tile-height=256,bigtiff,compression=deflate]", "0", "0", "\(width)", "\(height)"]
            )
        }
        let output = (root as NSString).appendingPathComponent("bigtiff-out")
        func fresh() {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            sync()
        }
        defer { try? FileManager.default.removeItem(atPath: output) }
        let ours = try TilesBenchmark.best(2) {
            fresh(); return try MeasuredRun.run(fic, ["tile", tiff, "--out", output + "/pyramid.tif", "--compression", "none"]).figures
        }
        let theirs = try TilesBenchmark.best(2) {
            fresh()
            return try MeasuredRun.run(
                vips,
                [
                    "tiffsave", tiff, output + "/out.tif", "--tile", "--pyramid", "--compression", "none", "--tile-width", "256",
                    "--tile-height", "256", "--bigtiff"
                ]
            ).figures
        }
        log(
            "  tiled BigTIFF \(width)×\(height): fic tile \(TilesBenchmark.describe(ours)); vips tiffsave --pyramid \(TilesBenchmark.describe(theirs))"
        )
        return .init(
            width: width, height: height, ficSeconds: ours.seconds, ficPeakRSSBytes: ours.peakRSSBytes, vipsSeconds: theirs.seconds,
            vipsPeakRSSBytes: theirs.peakRSSBytes)
    }
}

/// Tags a JPEG with an ICC profile without touching its image data.
enum JPEGProfiles {
    /// `jpeg` with `profile` in APP2 `ICC_PROFILE` markers (split into chunks of at most 65,519
    /// bytes, numbered from 1) right after its SOI; an existing profile is left in place after them.
    static func tagged(_ jpeg: [UInt8], profile: [UInt8]) throws -> [UInt8] {
        guard jpeg.count > 2, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw BenchmarkError("not a JPEG") }
        let chunk = 65_519
        let count = (profile.count + chunk - 1) / chunk
        guard count > 0, count < 256 else { throw BenchmarkError("the profile is empty or over 255 markers") }
        var out: [UInt8] = [0xFF, 0xD8]
        for index in 0..<count {
            let part = profile[(index * chunk)..<min(profile.count, (index + 1) * chunk)]
            let length = 2 + 12 + 2 + part.count
            out +=
                [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)]
                + part
        }
        return out + jpeg[2...]
    }
}
