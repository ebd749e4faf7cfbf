#if Tool
import FICCommandLine
import Foundation

/// Where the demo's photos come from and where its files go.
package enum DemoPhotos {
    /// The photos under `folder`, or the bundled sample photos when it is nil.
    package static func find(in folder: String?) throws -> [DemoSource] {
        let root = try self.root(of: folder)
        let found = try ImageFiles.decodableImages(under: root)
        guard !found.isEmpty else { throw noPhotos(under: root) }
        return found.map { DemoSource(path: $0.path, name: $0.relativePath) }
    }

    /// The absolute path of `folder`, or of the bundled sample photos when it is nil.
    package static func root(of folder: String?) throws -> String {
        if let folder { return Paths.absolute(folder) }
        guard let url = Bundle.module.url(forResource: "SamplePhotos", withExtension: nil) else {
            throw CLIError("the bundled sample photos are missing: reinstall fic, or give --photos DIR")
        }
        return url.path
    }

    /// The error for a folder without photos.
    package static func noPhotos(under root: String) -> CLIError {
        CLIError("no JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF images under \(root): give --photos a folder of photos")
    }

    /// `folder` (created if needed), or a new temporary folder.
    package static func outputFolder(_ folder: String?) throws -> String {
        if let folder {
            let path = Paths.absolute(folder)
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw CLIError("cannot create \(path): \(error.localizedDescription)")
            }
            return path
        }
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("fic-demo-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CLIError("cannot create a temporary folder: give --out DIR")
        }
        return String(cString: made)
    }
}
#endif
