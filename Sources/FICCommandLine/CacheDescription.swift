#if Tool
import FastImageCache
import Foundation

/// The formats of a cache made by `fic ingest`, kept in `CACHE/NAMESPACE.formats.json`.
///
/// The file sits next to the namespace folder, not inside it: the namespace folder holds only
/// the cache's tables. Later commands open the cache with exactly these formats, since opening
/// it with others would discard the stored images. The file is read and written like every file
/// of the cache: never through a symbolic link, private to the user, replaced atomically.
package struct CacheDescription: Codable {
    /// The layout version of this file.
    package var version = 1
    /// The family all formats belong to: one decode per source image draws them all.
    package var family: String
    /// The formats, in order.
    package var formats: [FormatSpec]
    /// The folder of photos the namespace holds, when it is one folder's (the viewer's and
    /// `fic ingest DIR`'s default namespaces), so that tools can say which folder it belongs to.
    package var photos: String?

    /// A description of `formats` of `family`, for the photos of `photos`.
    package init(family: String, formats: [FormatSpec], photos: String? = nil) {
        self.family = family
        self.formats = formats
        self.photos = photos
    }

    /// The end of the description's file name.
    package static let fileSuffix = ".formats.json"

    /// The file name of the description of `namespace`.
    package static func fileName(namespace: String) -> String { namespace + fileSuffix }

    /// The path of the description of `namespace` in `directory`.
    package static func path(directory: String, namespace: String) -> String {
        (directory as NSString).appendingPathComponent(fileName(namespace: namespace))
    }

    /// The default folder of the downloaded originals of `namespace` in `directory` (beside the
    /// namespace's tables and description), used by `fic ingest` and `fic view gallery --urls`.
    package static func originalsPath(directory: String, namespace: String) -> String {
        (directory as NSString).appendingPathComponent(namespace + ".originals")
    }

    /// Reads the description.
    ///
    /// - Throws: ``CLIError`` when there is none (no cache: the message names the namespaces the
    ///   directory holds, since `--cache DIR` alone means 'default', which a folder filled by the
    ///   viewer or with `--namespace` lacks) or it cannot be read.
    package static func load(directory: String, namespace: String, followLinks: Bool) throws -> CacheDescription {
        guard let description = try loadIfPresent(directory: directory, namespace: namespace, followLinks: followLinks) else {
            let held = NamespaceListing.names(in: directory, followLinks: followLinks)
            let missing = "no cache '\(namespace)' in \(directory) (\(path(directory: directory, namespace: namespace)) is missing)"
            let create = "'fic ingest DIR --cache \(directory) --namespace \(namespace)'"
            if held.isEmpty {
                throw CLIError("\(missing), and \(directory) holds no namespace: create it with \(create)")
            }
            throw CLIError(
                "\(missing); \(directory) holds the namespace\(held.count == 1 ? "" : "s") \(held.joined(separator: ", ")): choose one with --namespace NS or --photos DIR, or create '\(namespace)' with \(create)"
            )
        }
        return description
    }

    /// Reads the description if there is one.
    package static func loadIfPresent(directory: String, namespace: String, followLinks: Bool) throws -> CacheDescription? {
        let path = path(directory: directory, namespace: namespace)
        let bytes: [UInt8]?
        do {
            bytes = try CompanionFile.read(fileName(namespace: namespace), in: directory, followLinks: followLinks, limit: 1 << 20)
        } catch let error as CLIError {
            throw CLIError("\(error.message): not a cache description; delete it and ingest again")
        } catch let error as ImageCacheError where error.path == directory {
            throw CLIError("cannot open the cache directory: \(error)")
        } catch {
            throw CLIError("cannot read \(path): \(error); delete it and the folder \(namespace) and ingest again")
        }
        guard let bytes else { return nil }
        do {
            return try JSONDecoder().decode(CacheDescription.self, from: Data(bytes))
        } catch {
            throw CLIError("cannot read \(path): \(error); delete it and the folder \(namespace) and ingest again")
        }
    }

    /// Writes the description atomically (a new, private file renamed over the old one).
    package func save(directory: String, namespace: String, followLinks: Bool) throws {
        let path = Self.path(directory: directory, namespace: namespace)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try CompanionFile.write(
                [UInt8](try encoder.encode(self)), as: Self.fileName(namespace: namespace), in: directory, followLinks: followLinks)
        } catch {
            throw CLIError("cannot write \(path): \(error)")
        }
    }

    /// The cache formats, from command-line specs (a bad one is a usage error).
    package func imageFormats() throws -> [ImageFormat] {
        try formats.map { try $0.makeFormat(family: family) }
    }

    /// The cache formats, as stored in the description of `namespace` (a bad one is a damaged
    /// file, said with its path).
    package func storedFormats(directory: String, namespace: String) throws -> [ImageFormat] {
        do {
            return try imageFormats()
        } catch let error as CLIError {
            throw CLIError(
                "\(Self.path(directory: directory, namespace: namespace)) holds an invalid format (\(error.message)); delete it and the folder \(namespace) and ingest again"
            )
        }
    }
}
#endif
