#if Tool
import FICDemo
import FICCommandLine
import ArgumentParser
import FastImageCache
import Foundation
import ImageCodec

/// `fic ingest DIR|URL… [--urls FILE] [--cache DIR] [--format SPEC…]`: stores every image under a
/// folder, and every image at a list of URLs, in every format of one family, one decode per
/// image, several at a time.
struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Add every image under a folder, or at a list of URLs, to a cache, in every format of one family.",
        discussion: """
            Each file is decoded once, at the size of the largest format, and drawn into every \
            format from that one decode. The entity of an image is its path relative to DIR; its \
            version is a hash of its bytes, so unchanged files are skipped and edited ones redrawn. \
            --jobs files are decoded at a time (default: one per core). Before a file is read, \
            what decoding it needs is estimated from its header (a progressive JPEG needs all its \
            coefficients: ~44 MB at 5120×2880), and the decodes in flight share one budget of \
            --memory MiB, so memory stays flat however many files there are. The default budget \
            is a sixteenth of the memory the machine (or its container) gives the process, 96 MiB \
            to 2 GiB, enough to keep every core decoding; --low-memory keeps 96 MiB, one large \
            photo at a time (an ingest of large photos then peaks under 150 MB). \
            Results are reported in the order of the files.

            Without --cache, the images go to the folder's own namespace in the default cache \
            folder ($XDG_CACHE_HOME/fic, or ~/.cache/fic), the one `fic view gallery --photos DIR` \
            shows; without --format and with none stored, in the viewer's formats. With --cache \
            the namespace is 'default' unless --namespace says otherwise. The default folder is \
            kept under --cache-limit MiB (default 2048) by removing the least recently used other \
            namespaces, never one in use.

            The formats are remembered in CACHE/NAMESPACE.formats.json: later commands (get, \
            inspect, verify, and ingest without --format) use them. Giving other formats later \
            replaces them, and the cache discards the images of every changed format.

            URLs (http, https or file; as arguments or one a line in --urls FILE, where blank \
            lines and lines starting with # are skipped) are downloaded through a disk cache of \
            originals (--originals DIR, default CACHE/NAMESPACE.originals, at most \
            --originals-limit MiB): a second run over the same list downloads nothing the \
            originals cache still holds. The entity of such an image is its URL; its version a \
            hash of its bytes. Progress shows images, bytes downloaded and bytes read.

            Exit status: 0 when every image was ingested, 1 when some files or URLs were refused \
            (each is named on stderr with the reason), 2 on usage errors.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "A folder of images (searched recursively, following links to files), an image file, or http(s)/file URLs of images.",
            valueName: "dir|url"))
    var sources: [String] = []

    @Option(name: .long, help: ArgumentHelp("A file of image URLs, one a line.", valueName: "file"))
    var urls: String?

    @Option(
        name: .long, help: ArgumentHelp("The disk cache of downloaded originals (default: CACHE/NAMESPACE.originals).", valueName: "dir"))
    var originals: String?

    @Option(name: .long, help: ArgumentHelp("The most the originals cache may hold, in MiB (default 1024).", valueName: "mib"))
    var originalsLimit: Int = 1024

    @OptionGroup var cacheOptions: CacheOptions

    @Option(
        name: .customLong("format"), parsing: .singleValue,
        help: ArgumentHelp(
            "A format as NAME:WxH[@SCALE][:STYLE][:max=N]: size in points, scale (default 1), style bgra, bgrx, rgb565 or gray8 (default bgra), maximum count (default 10000). Repeat for several formats.",
            valueName: "spec"))
    var formatTexts: [String] = []

    @Option(name: .long, help: ArgumentHelp("The family of the formats (default: the cache's, or 'images').", valueName: "name"))
    var family: String?

    @Option(name: .long, help: ArgumentHelp("How many files to decode at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The memory the decodes in flight may use together, in MiB (default: a sixteenth of the machine's memory, 96 to 2048). A file that needs more is decoded alone.",
            valueName: "mib"))
    var memory: Int?

    @Flag(
        name: .long,
        help: "Decode with 96 MiB: one large photo at a time, less memory, slower for HEIC and AVIF on several cores.")
    var lowMemory = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep the cache folder's tables under this many MiB, removing the least recently used other namespaces first (default without --cache: 2048; with --cache: no limit).",
            valueName: "mib"))
    var cacheLimit: Double?

    @Flag(name: .long, help: "After the summary, print the process's peak resident memory (VmHWM).")
    var reportMemory = false

    func validate() throws {
        let local = sources.filter { URLIngest.parse($0) == nil }
        if local.isEmpty && sources.isEmpty && urls == nil { throw ValidationError("give a folder of images, image URLs, or --urls FILE") }
        if local.count > 1 { throw ValidationError("give one folder (or file) of images; URLs may be given as well") }
        if originalsLimit < 1 || originalsLimit > 1 << 24 {
            throw ValidationError("--originals-limit must be between 1 and 16777216 MiB, not \(originalsLimit)")
        }
        for text in formatTexts {
            do { _ = try FormatSpec(parsing: text) } catch let error as CLIError { throw ValidationError(error.message) }
        }
        let names = formatTexts.compactMap { $0.split(separator: ":").first.map(String.init) }
        if Set(names).count != names.count { throw ValidationError("two --format options have the same name") }
        if let family { try CacheOptions.validateName(family, what: "--family") }
        if let jobs, jobs < 1 || jobs > 256 { throw ValidationError("--jobs must be between 1 and 256, not \(jobs)") }
        if let memory, memory < 1 || memory > 1 << 20 { throw ValidationError("--memory must be between 1 and 1048576 MiB, not \(memory)") }
        if memory != nil && lowMemory { throw ValidationError("give --memory or --low-memory, not both") }
        if let cacheLimit, !(cacheLimit > 0 && cacheLimit <= Double(1 << 30)) {
            throw ValidationError("--cache-limit must be a positive number of MiB, at most 1073741824, not \(cacheLimit)")
        }
    }

    /// The bytes of the decode budget.
    var memoryBytes: Int {
        memory.map { $0 << 20 } ?? (lowMemory ? DecodeMemoryBudget.smallMemoryCapacity : DecodeMemoryBudget.defaultCapacity)
    }

    /// The number of decodes at a time.
    var jobCount: Int { jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount) }

    func run() async throws {
        var webURLs = sources.compactMap(URLIngest.parse)
        if let urls { webURLs += try URLList.read(Paths.absolute(urls)) }
        let root = sources.first { URLIngest.parse($0) == nil }.map(Paths.absolute)
        let files = try root.map(ImageFiles.files(under:)) ?? []
        // The photo folder: the folder given, or the folder of the file given.
        let photoFolder = try root.map { root in
            try DefaultCache.realPath(files.count == 1 && files[0].path == root ? (root as NSString).deletingLastPathComponent : root)
        }
        // Without --cache, the folder's own namespace in the default folder (the viewer's).
        let location = try cacheOptions.location(photos: cacheOptions.usesDefaultDirectory ? photoFolder : nil)
        let directory = location.directory, namespace = location.namespace
        let existing = try CacheDescription.loadIfPresent(directory: directory, namespace: namespace, followLinks: location.followLinks)
        let specs = try formatTexts.map { try FormatSpec(parsing: $0) }
        let description: CacheDescription
        if !specs.isEmpty {
            description = CacheDescription(family: family ?? existing?.family ?? "images", formats: specs, photos: existing?.photos)
        } else if let existing {
            description = CacheDescription(family: family ?? existing.family, formats: existing.formats, photos: existing.photos)
        } else if photoFolder != nil {
            // Nothing given or stored: the viewer's formats, so that `fic view gallery --photos` shows them.
            description = try DemoFormats.description(count: files.count, photos: nil)
        } else {
            throw CLIError("give at least one --format NAME:WxH[@SCALE][:STYLE][:max=N] (the cache has none yet)", status: ExitStatus.usage)
        }
        var stored = description
        if stored.photos == nil && cacheOptions.usesDefaultDirectory && cacheOptions.namespace == nil { stored.photos = photoFolder }
        if let existing, existing.formats != description.formats || existing.family != description.family {
            Terminal.error("note: the formats differ from the cache's; images of changed formats are discarded")
        }
        let formats =
            specs.isEmpty && existing != nil
            ? try description.storedFormats(directory: directory, namespace: namespace) : try description.imageFormats()
        let cache = try CacheOpener.open(
            directory: directory, namespace: namespace, formats: formats, options: location.options(readOnly: false))
        defer { cache.close() }
        OpenReports.print(cache)
        try stored.save(directory: directory, namespace: namespace, followLinks: location.followLinks)

        // The namespace is this folder's: remember each file's version for the viewer.
        let remembers = photoFolder != nil && stored.photos == photoFolder
        var memo = remembers ? SourceMemo.load(directory: directory, namespace: namespace, followLinks: location.followLinks) : SourceMemo()
        let viewerFormats = DemoFormats.isViewerDescription(description)
        let ingester = Ingester(cache: cache, budget: DecodeMemoryBudget(capacity: memoryBytes)) { id, hash, url -> any ImageEntity in
            // Drawn as the viewer draws them, when they are the viewer's formats.
            viewerFormats ? DemoPhoto(entityID: id, sourceImageID: hash, url: url) : FileEntity(entityID: id, sourceImageID: hash, url: url)
        }
        let candidates = files.filter(ImageFiles.looksLikeImage)
        var progress = ProgressBar(total: candidates.count)
        let start = Stopwatch.now()
        var counts = (added: 0, unchanged: 0, refused: 0)
        try await IngestQueue.run(candidates, jobs: jobCount, work: ingester.ingest) { index, file, result in
            progress.update(index + 1, label: file.relativePath)
            memo.set(result.row, for: file.relativePath)
            switch result.outcome {
            case .added(let warnings):
                counts.added += 1
                for warning in warnings {
                    progress.clear()
                    Terminal.error("warning: \(file.relativePath): \(warning)")
                }
            case .unchanged:
                counts.unchanged += 1
            case .refused(let reason):
                counts.refused += 1
                progress.clear()
                Terminal.error("refused \(file.relativePath): \(reason)")
            }
        }
        progress.update(candidates.count, label: "done")
        progress.clear()
        try cache.synchronize()
        if remembers {
            do { try memo.save(directory: directory, namespace: namespace, followLinks: location.followLinks) } catch {
                Terminal.error("note: cannot remember the files' versions (\(error)); the viewer reads them again")
            }
        }
        let seconds = Formatting.fixed(Double(Stopwatch.elapsed(since: start)) / 1e9, 2)
        var line =
            "ingested \(counts.added + counts.unchanged) of \(candidates.count) image files into \(formats.map(\.name).joined(separator: ", ")) in \(seconds) s: \(counts.added) added, \(counts.unchanged) unchanged, \(counts.refused) refused"
        let ignored = files.count - candidates.count
        if ignored > 0 { line += "; \(ignored) other file\(ignored == 1 ? "" : "s") ignored" }
        if root != nil { print(line) }
        if cacheOptions.usesDefaultDirectory { print("cache: \(location.path)") }

        var urlsFailed = 0
        if !webURLs.isEmpty {
            let urlStart = Stopwatch.now()
            let store = originals.map(Paths.absolute) ?? CacheDescription.originalsPath(directory: directory, namespace: namespace)
            let outcome = try await URLIngest.run(
                webURLs, cache: cache, family: description.family, originals: store,
                originalsLimit: originalsLimit << 20, jobs: jobCount)
            try cache.synchronize()
            urlsFailed = outcome.failed
            let urlSeconds = Formatting.fixed(Double(Stopwatch.elapsed(since: urlStart)) / 1e9, 2)
            print(
                "ingested \(outcome.added + outcome.unchanged) of \(webURLs.count) URLs into \(formats.map(\.name).joined(separator: ", ")) in \(urlSeconds) s: \(outcome.added) added, \(outcome.unchanged) unchanged, \(outcome.failed) refused; \(Formatting.bytes(outcome.bytesDownloaded)) downloaded, \(Formatting.bytes(outcome.bytesRead)) read from the originals cache or files"
            )
        }
        if let limit = cacheLimit.map({ Int($0 * 1_048_576) }) ?? (cacheOptions.usesDefaultDirectory ? DefaultCache.limitMiB << 20 : nil),
            let note = CacheTrim.run(directory: directory, keeping: namespace, limitBytes: limit, followLinks: location.followLinks)
        {
            Terminal.error(note)
        }
        if reportMemory, let peak = Self.peakResidentKiB() {
            print("peak resident memory: \(peak) KiB")
        }
        if counts.refused > 0 || urlsFailed > 0 { throw ExitCode(ExitStatus.failure) }
    }

    /// `VmHWM` from `/proc/self/status`: the peak resident set of this process's own memory
    /// (unlike `ru_maxrss`, which keeps a larger figure inherited from the parent across `exec`).
    static func peakResidentKiB() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).filter(\.isNumber))
        }
        return nil
    }
}
#endif
