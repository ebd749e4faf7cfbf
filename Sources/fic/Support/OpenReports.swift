import FastImageCache

/// Says what opening a cache found: rebuilt tables, dropped entries, crash recovery.
enum OpenReports {
    /// Prints one line on stderr per format whose table was not opened cleanly. Returns whether
    /// any stored images were lost.
    @discardableResult
    static func print(_ cache: ImageCache) -> Bool {
        var lost = false
        for format in cache.formats {
            guard let report = cache.openReports[format.name] else { continue }
            let text = report.description
            if !text.isEmpty && text != "read-only" {
                Terminal.error("format \(format.name): the table was \(text)")
            }
            lost = lost || report.lostImages
        }
        return lost
    }
}
