import FastImageCache
import Foundation

/// The formats of a cache made by `fic ingest`, kept in `CACHE/NAMESPACE.formats.json`.
///
/// The file sits next to the namespace folder, not inside it: the cache removes every file in
/// its namespace that belongs to no format. Later commands open the cache with exactly these
/// formats, since opening it with others would discard the stored images.
struct CacheDescription: Codable {
    /// The layout version of this file.
    var version = 1
    /// The family all formats belong to: one decode per source image draws them all.
    var family: String
    /// The formats, in order.
    var formats: [FormatSpec]

    /// The path of the description of `namespace` in `directory`.
    static func path(directory: String, namespace: String) -> String {
        (directory as NSString).appendingPathComponent(namespace + ".formats.json")
    }

    /// Reads the description.
    ///
    /// - Throws: ``CLIError`` when there is none (no cache) or it cannot be read.
    static func load(directory: String, namespace: String) throws -> CacheDescription {
        let path = path(directory: directory, namespace: namespace)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError("no cache '\(namespace)' in \(directory) (\(path) is missing): create it with 'fic ingest DIR --cache \(directory) --format NAME:WxH'")
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(CacheDescription.self, from: data)
        } catch {
            throw CLIError("cannot read \(path): \(error.localizedDescription); delete it and the folder \(namespace) and ingest again")
        }
    }

    /// Reads the description if there is one.
    static func loadIfPresent(directory: String, namespace: String) throws -> CacheDescription? {
        guard FileManager.default.fileExists(atPath: path(directory: directory, namespace: namespace)) else { return nil }
        return try load(directory: directory, namespace: namespace)
    }

    /// Writes the description atomically.
    func save(directory: String, namespace: String) throws {
        let path = Self.path(directory: directory, namespace: namespace)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// The cache formats.
    func imageFormats() throws -> [ImageFormat] {
        try formats.map { try $0.makeFormat(family: family) }
    }
}
