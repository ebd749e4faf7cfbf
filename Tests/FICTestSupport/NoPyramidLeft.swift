import Foundation
import Testing

/// Checks that no pyramid was left at `path` by a build that failed: no file of that name, and no
/// hidden file beside it (a temporary name that was never committed).
public func expectNoPyramid(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let folder = (path as NSString).deletingLastPathComponent
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    #expect(!FileManager.default.fileExists(atPath: path), "\(path) was left", sourceLocation: sourceLocation)
    let hidden = files.filter { $0.hasPrefix(".") }
    #expect(hidden.isEmpty, "left behind: \(hidden)", sourceLocation: sourceLocation)
}
