#if Tool
import FICCommandLine
import FastImageCache

/// Says what opening a cache found: rebuilt tables, dropped entries, crash recovery.
enum OpenReports {
    /// Prints one line on stderr per format whose table was not opened cleanly. Returns whether
    /// any stored images were lost.
    @discardableResult
    static func print(_ cache: ImageCache) -> Bool {
        var lost = false
        for format in cache.formats {
            guard var report = cache.openReports[format.name] else { continue }
            report.isReadOnly = false  // the command chose that
            let text = report.description
            if !text.isEmpty {
                Terminal.error("format \(format.name): \(text)")
            }
            lost = lost || report.lostImages
        }
        return lost
    }
}
#endif
