#if Tool
import FICCommandLine
import ArgumentParser
import FastImageCache
import Foundation

/// `fic inspect`: what a cache holds, per format; or the namespaces of a cache folder.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a cache's formats: size, style, entries, fill and disk use; or list the namespaces of a cache folder.",
        discussion: """
            Without --cache, --namespace and --photos (or with --list), lists the namespaces of the \
            cache folder: name, photo folder, size on disk and last use, least recently used first \
            (the first to go when the folder is over its limit). With --cache DIR alone, shows \
            DIR's namespace 'default'; when DIR has none, shows its only namespace, or lists them \
            when it holds several.

            A format's entries are every slot in use: its images (one per entity), the frames \
            after the first of the animations it stores frame by frame, and their records; the \
            last column (and the JSON's images, animationFrames and animationRecords) says how \
            many of each.

            Exit status: 0 on success, 1 when there is no cache, 2 on usage errors.
            """
    )

    @OptionGroup var cacheOptions: CacheOptions

    @OptionGroup var folder: PhotoFolderOption

    @Flag(name: .long, help: "List the namespaces of the cache folder.")
    var list = false

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    func run() throws {
        let listing = list || (cacheOptions.usesDefaultDirectory && cacheOptions.namespace == nil && folder.photos == nil)
        if listing {
            if cacheOptions.namespace != nil || folder.photos != nil {
                throw CLIError("--list shows every namespace: leave out --namespace and --photos", status: ExitStatus.usage)
            }
            let report = try NamespaceListing(directory: try cacheOptions.directory(), followLinks: cacheOptions.followLinks)
            print(json ? try report.json() : report.table())
            return
        }
        var location = try cacheOptions.location(choosing: folder)
        if cacheOptions.namespace == nil && folder.photos == nil,
            try CacheDescription.loadIfPresent(
                directory: location.directory, namespace: location.namespace, followLinks: location.followLinks) == nil
        {
            // --cache DIR alone means 'default', which a folder the viewer or `fic ingest DIR
            // --namespace NS` filled lacks: show what the folder holds instead of failing.
            let report = try NamespaceListing(directory: location.directory, followLinks: location.followLinks)
            if report.namespaces.count == 1 {
                location = CacheLocation(
                    directory: location.directory, namespace: report.namespaces[0].namespace, followLinks: location.followLinks)
            } else if !report.namespaces.isEmpty {
                Terminal.error(
                    "note: \(location.directory) has no namespace '\(location.namespace)'; inspect one of those below with --namespace NS")
                print(json ? try report.json() : report.table())
                return
            }
        }
        let (cache, description) = try location.openExisting(readOnly: true)
        OpenReports.print(cache)
        let report = InspectReport(
            cache: cache, family: description.family, directory: location.directory, namespace: location.namespace,
            photos: description.photos)
        cache.close()
        print(json ? try report.json() : report.table())
    }
}

/// The figures `fic inspect` prints.
struct InspectReport: Codable {
    /// One format's figures.
    struct Format: Codable {
        var name: String
        var width: Double
        var height: Double
        var scale: Double
        var pixelWidth: Int
        var pixelHeight: Int
        var style: String
        /// Every entry: images, animations' other frames and their records (each takes a slot).
        var count: Int
        /// Entries that are images (one per entity: a still image or an animation's first frame).
        var images: Int
        /// Entries that are animations' frames after the first.
        var animationFrames: Int
        /// Entries that are animation records.
        var animationRecords: Int
        var maximumCount: Int
        var fillPercent: Double
        var diskBytes: Int
        /// The other processes that have the format's table open (process ids; 0 when one's
        /// registration does not say).
        var openIn: [Int32]
    }

    var directory: String
    var namespace: String
    /// The photo folder the namespace belongs to, when it is one folder's.
    var photos: String?
    var family: String
    var formats: [Format]
    var totalCount: Int
    var totalDiskBytes: Int

    init(cache: ImageCache, family: String, directory: String, namespace: String, photos: String?) {
        let stats = Dictionary(cache.statistics.formats.map { ($0.format, $0) }, uniquingKeysWith: { a, _ in a })
        formats = cache.formats.map { f in
            let s = stats[f.name]
            let kinds = (try? cache.entryCounts(format: f.name)) ?? EntryCounts()
            let count = kinds.total
            return Format(
                name: f.name, width: Double(f.size.width), height: Double(f.size.height), scale: f.scale,
                pixelWidth: f.pixelSize.width, pixelHeight: f.pixelSize.height, style: f.style.rawValue,
                count: count, images: kinds.images, animationFrames: kinds.animationFrames, animationRecords: kinds.animationRecords,
                maximumCount: f.maximumCount,
                fillPercent: (Double(count) * 1000 / Double(f.maximumCount)).rounded() / 10,
                diskBytes: s?.diskBytes ?? 0,
                openIn: ((try? cache.openProcesses(format: f.name)) ?? []).filter { !$0.isThisTable }.map { $0.processID ?? 0 })
        }
        self.directory = directory
        self.namespace = namespace
        self.photos = photos
        self.family = family
        totalCount = formats.reduce(0) { $0 + $1.count }
        totalDiskBytes = formats.reduce(0) { $0 + $1.diskBytes }
    }

    func json() throws -> String { try Formatting.json(self) }

    func table() -> String {
        func number(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        func counted(_ n: Int, _ what: String) -> String { "\(Formatting.grouped(n)) \(what)\(n == 1 ? "" : "s")" }
        var rows = [["format", "points", "pixels", "style", "entries/max", "fill", "disk", "open in", "entries are"]]
        for f in formats {
            let kinds =
                [counted(f.images, "image")]
                + (f.animationFrames + f.animationRecords == 0
                    ? []
                    : [counted(f.animationFrames, "animation frame"), counted(f.animationRecords, "animation record")])
            rows.append([
                f.name, "\(number(f.width))×\(number(f.height)) @\(number(f.scale))x", "\(f.pixelWidth)×\(f.pixelHeight)", f.style,
                "\(Formatting.grouped(f.count))/\(Formatting.grouped(f.maximumCount))", Formatting.fixed(f.fillPercent, 1) + " %",
                Formatting.bytes(f.diskBytes),
                f.openIn.isEmpty ? "—" : f.openIn.map { $0 == 0 ? "?" : "pid \($0)" }.joined(separator: ", "),
                kinds.joined(separator: ", ")
            ])
        }
        rows.append(["total", "", "", "", Formatting.grouped(totalCount), "", Formatting.bytes(totalDiskBytes), "", ""])
        let title = "cache \(directory)/\(namespace), family \(family)" + (photos.map { ", photos \($0)" } ?? "")
        return ([title] + Formatting.aligned(rows)).joined(separator: "\n")
    }
}
#endif
