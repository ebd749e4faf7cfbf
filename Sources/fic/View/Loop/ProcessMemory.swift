#if Tool
import Foundation

/// This process's resident memory, from `/proc/self/status`.
enum ProcessMemory {
    /// The peak resident set (`VmHWM`), bytes; 0 when unknown.
    static var peakResidentBytes: Int { field("VmHWM:") }
    /// The resident set now (`VmRSS`), bytes; 0 when unknown.
    static var residentBytes: Int { field("VmRSS:") }

    private static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return (Int(line.dropFirst(name.count).filter(\.isNumber)) ?? 0) * 1024
        }
        return 0
    }
}
#endif
