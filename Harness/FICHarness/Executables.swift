import Foundation

/// Programs of the system that tests and benchmarks run (nginx, vips, djpeg…).
public enum Executables {
    /// The path of the executable `name` in `$PATH`, then in `/usr/bin`, `/usr/sbin` and
    /// `/usr/local/bin` (nginx lives in sbin, which is not on every `$PATH`); nil when missing.
    public static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/usr/local/bin"])
            .map { $0 + "/" + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
