/// The lines of a benchmark's summary: its table of figures, each with its target and whether it
/// was met, and the notes around it.
struct SummaryTable {
    /// The lines so far.
    private(set) var lines: [String] = []

    /// A line as it is.
    mutating func line(_ text: String) {
        lines.append(text)
    }

    /// A row of the table: a figure, its value, its target and whether it was met (yes or NO).
    mutating func row(_ figure: String, _ value: String, _ target: String = "", _ met: Bool? = nil) {
        let verdict = met.map { $0 ? "yes" : "NO" } ?? ""
        lines.append("  " + Self.pad(figure, 44) + Self.pad(value, 16) + Self.pad(target, 14) + verdict)
    }

    /// `s` padded with spaces to `width` characters, or followed by one space when it is as wide or wider.
    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }
}
