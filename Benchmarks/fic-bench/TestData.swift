#if Tool
import ArgumentParser
import FICDemo
import Foundation

/// Where `fic-bench` finds its test data.
enum TestData {
    /// `given` (`--testdata`), else `../shared/testdata` relative to the current directory or to
    /// `executableFolder` (or any folder above either), else the sample photos bundled with the tool.
    static func folder(given: String?, executableFolder: String) throws -> String {
        let fm = FileManager.default
        if let given {
            guard fm.fileExists(atPath: given) else { throw ValidationError("no such folder: \(given)") }
            return given
        }
        for start in [fm.currentDirectoryPath, executableFolder] {
            var dir = URL(fileURLWithPath: start)
            while true {
                for candidate in ["../shared/testdata", "shared/testdata"] {
                    let url = dir.appendingPathComponent(candidate).standardizedFileURL
                    if fm.fileExists(atPath: url.appendingPathComponent("photos").path) { return url.path }
                }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        if let bundled = try? DemoPhotos.root(of: nil) {
            return bundled
        }
        throw ValidationError("no test data found; pass --testdata DIR")
    }
}
#endif
