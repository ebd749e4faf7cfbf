#if Tool
import FICCore
import FastImageCache
import Foundation
import ImageCodec

/// Finds the files under a folder: recursively, in name order, following symbolic links to
/// files (not to folders, so a link cannot make a cycle), skipping hidden names.
package enum ImageFiles {
    /// A regular file found under a root.
    package struct Found: Hashable {
        /// The absolute path.
        package let path: String
        /// The path relative to the root, with `/` separators.
        package let relativePath: String
    }

    /// Extensions of image formats; files with them are treated as images even when their
    /// content is not one (so that a damaged or unsupported image is reported, not skipped).
    package static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "webp", "gif", "bmp", "tif", "tiff", "heic", "heif", "avif", "jxl"
    ]

    /// Every regular file under `root` (a folder, or one file).
    ///
    /// - Throws: ``CLIError`` when `root` does not exist or is not readable.
    package static func files(under root: String) throws -> [Found] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
            throw CLIError("\(root) does not exist: give a folder of images")
        }
        guard isDirectory.boolValue else {
            return [Found(path: root, relativePath: (root as NSString).lastPathComponent)]
        }
        var found: [Found] = []
        try walk(root, relative: "", into: &found)
        return found
    }

    private static func walk(_ folder: String, relative: String, into found: inout [Found]) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            throw CLIError("cannot list \(folder): \(error.localizedDescription)")
        }
        for name in names where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            let rel = relative.isEmpty ? name : relative + "/" + name
            guard let link = try? fileStatus(atPath: path, followLinks: false) else { continue }
            if link.isDirectory {
                try walk(path, relative: rel, into: &found)
                continue
            }
            guard let target = try? fileStatus(atPath: path), target.isRegularFile else { continue }
            found.append(Found(path: path, relativePath: rel))
        }
    }

    /// The image format the file's first bytes announce, or nil.
    package static func sniff(_ path: String) -> ImageFileFormat? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return head.withUnsafeBytes { ImageDecoder.sniffFormat($0) }
    }

    /// Whether the file's first bytes say it may be an animation (``AnimatedImageDecoder/mayBeAnimated(_:)``
    /// on its first 64 KiB, where an APNG's `acTL` comes before its image data): nothing more
    /// is read of a large still image.
    package static func mayBeAnimated(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1 << 16)) ?? Data()
        return head.withUnsafeBytes(AnimatedImageDecoder.mayBeAnimated)
    }

    /// Whether the file should be ingested: its content is an image, or its name says it is one.
    package static func looksLikeImage(_ file: Found) -> Bool {
        sniff(file.path) != nil || imageExtensions.contains((file.path as NSString).pathExtension.lowercased())
    }

    /// The files under `root` whose content is an image the package decodes (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF, TIFF).
    package static func decodableImages(under root: String) throws -> [Found] {
        try files(under: root).filter { sniff($0.path) != nil }
    }
}
#endif
