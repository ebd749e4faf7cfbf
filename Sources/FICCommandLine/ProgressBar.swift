#if Tool
/// A one-line progress bar on stderr, drawn only when stderr is a terminal. A value, so that
/// tasks reporting progress at once can share it in a ``LockedBox``.
package struct ProgressBar {
    private let total: Int
    private let enabled: Bool
    private var lastDraw: UInt64 = 0
    private var visible = false

    /// Creates a bar for `total` steps; it draws nothing unless stderr is a terminal.
    package init(total: Int, enabled: Bool = Terminal.stderrIsTerminal) {
        self.total = max(total, 1)
        self.enabled = enabled
    }

    /// Shows `done` of the total, with `label` (redrawn at most 20 times a second).
    package mutating func update(_ done: Int, label: String) {
        guard enabled else { return }
        let now = Stopwatch.now()
        guard done >= total || now &- lastDraw > 50_000_000 else { return }
        lastDraw = now
        let width = 24
        let filled = min(width, done * width / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        var line = "[\(bar)] \(done)/\(total) \(label)"
        let columns = Terminal.columns - 1
        if line.count > columns { line = String(line.prefix(max(columns, 10))) }
        Terminal.writeError("\r\u{1B}[K" + line)
        visible = true
    }

    /// Erases the bar so that another line can be written.
    package mutating func clear() {
        guard enabled, visible else { return }
        Terminal.writeError("\r\u{1B}[K")
        visible = false
    }
}
#endif
