#if Tool
import Foundation

/// Human-readable numbers for the tool's tables.
package enum Formatting {
    /// `12345` → `"12,345"`.
    package static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    /// Bytes in B, KB, MB or GB (powers of 1024), e.g. `"3.4 MB"`.
    package static func bytes(_ value: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var v = Double(value.magnitude)
        var unit = 0
        while v >= 1024, unit < units.count - 1 {
            v /= 1024
            unit += 1
        }
        let sign = value < 0 ? "-" : ""
        return unit == 0 ? "\(sign)\(value.magnitude) B" : sign + String(format: "%.1f %@", v, units[unit])
    }

    /// A duration in s, ms or µs with three significant digits.
    package static func duration(nanoseconds: Double) -> String {
        if nanoseconds >= 1e9 { return String(format: "%.2f s", nanoseconds / 1e9) }
        if nanoseconds >= 1e6 { return String(format: "%.2f ms", nanoseconds / 1e6) }
        return String(format: "%.1f µs", nanoseconds / 1e3)
    }

    /// `value` with `digits` decimals.
    package static func fixed(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// `rows` of cells as lines, each column padded to its widest cell, two spaces apart.
    package static func aligned(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.first?.count ?? 0)).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in zip(row, widths).map { pad($0, $1) }.joined(separator: "  ").trimmingTrailingSpaces }
    }

    /// `value` as indented JSON with sorted keys, for the `--json` of the tool's reports.
    package static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Pads or leaves `text` to `width` characters, left-aligned.
    package static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
#endif
