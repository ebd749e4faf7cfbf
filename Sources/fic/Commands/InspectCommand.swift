import ArgumentParser
import FastImageCache
import Foundation

/// `fic inspect`: what a cache holds, per format.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a cache's formats: size, style, entries, fill and disk use.",
        discussion: "Exit status: 0 on success, 1 when there is no cache, 2 on usage errors."
    )

    @OptionGroup var cacheOptions: CacheOptions

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    func run() throws {
        let (cache, description) = try cacheOptions.openExisting(readOnly: true)
        OpenReports.print(cache)
        let report = InspectReport(cache: cache, family: description.family, directory: cacheOptions.directory, namespace: cacheOptions.namespace)
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
        var count: Int
        var maximumCount: Int
        var fillPercent: Double
        var diskBytes: Int
    }

    var directory: String
    var namespace: String
    var family: String
    var formats: [Format]
    var totalCount: Int
    var totalDiskBytes: Int

    init(cache: ImageCache, family: String, directory: String, namespace: String) {
        let stats = Dictionary(cache.statistics.formats.map { ($0.format, $0) }, uniquingKeysWith: { a, _ in a })
        formats = cache.formats.map { f in
            let s = stats[f.name]
            let count = s?.count ?? 0
            return Format(
                name: f.name, width: Double(f.size.width), height: Double(f.size.height), scale: f.scale,
                pixelWidth: f.pixelSize.width, pixelHeight: f.pixelSize.height, style: f.style.rawValue,
                count: count, maximumCount: f.maximumCount,
                fillPercent: (Double(count) * 1000 / Double(f.maximumCount)).rounded() / 10,
                diskBytes: s?.diskBytes ?? 0)
        }
        self.directory = directory
        self.namespace = namespace
        self.family = family
        totalCount = formats.reduce(0) { $0 + $1.count }
        totalDiskBytes = formats.reduce(0) { $0 + $1.diskBytes }
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func table() -> String {
        func number(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        var rows = [["format", "points", "pixels", "style", "entries/max", "fill", "disk"]]
        for f in formats {
            rows.append([
                f.name, "\(number(f.width))×\(number(f.height)) @\(number(f.scale))x", "\(f.pixelWidth)×\(f.pixelHeight)", f.style,
                "\(Formatting.grouped(f.count))/\(Formatting.grouped(f.maximumCount))", Formatting.fixed(f.fillPercent, 1) + " %",
                Formatting.bytes(f.diskBytes),
            ])
        }
        rows.append(["total", "", "", "", Formatting.grouped(totalCount), "", Formatting.bytes(totalDiskBytes)])
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        var lines = ["cache \(directory)/\(namespace), family \(family)"]
        for row in rows {
            lines.append(zip(row, widths).map { Formatting.pad($0, $1) }.joined(separator: "  ").trimmingTrailingSpaces)
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
