import Glibc
import SystemPackage

/// A process named so that a reused process id is not taken for it: its id and its start time
/// (field 22 of `/proc/PID/stat`, clock ticks after boot). Two processes of one boot never share
/// both. Recorded where processes register in a shared file, for people and tools to read; whether
/// a registered process is alive is decided by a lock the kernel releases when it dies, and this
/// is the check where such locks are not available.
package struct ProcessIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The process id.
    package let pid: Int32
    /// When it started, in clock ticks after boot.
    package let startTime: UInt64

    /// A process named by its id and start time.
    package init(pid: Int32, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }

    /// The calling process, read once.
    package static let current: ProcessIdentity? = running(pid: getpid())

    /// The process running with id `pid` now, or nil when none does (or `/proc` does not say).
    package static func running(pid: Int32) -> ProcessIdentity? {
        guard pid > 0 else { return nil }
        let path = "/proc/\(pid)/stat"
        guard let fd = try? FileDescriptor.open(atPath: path, .readOnly) else { return nil }
        defer { fd.closeQuietly() }
        var buffer = [UInt8](repeating: 0, count: 1024)
        guard let count = try? buffer.withUnsafeMutableBytes({ try fd.readAll(into: $0, path: path) }) else { return nil }
        guard let startTime = startTime(statLine: buffer[0..<count]) else { return nil }
        return ProcessIdentity(pid: pid, startTime: startTime)
    }

    /// Field 22 of a `/proc/PID/stat` line. The command name (field 2) is in parentheses and may
    /// itself hold spaces and parentheses, so fields are counted after the last `)`.
    package static func startTime(statLine: some BidirectionalCollection<UInt8>) -> UInt64? {
        guard let close = statLine.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After ")": field 3 (the state) onwards, separated by single spaces.
        let fields = statLine[statLine.index(after: close)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self).filter { $0 != "\n" })
    }

    /// Whether the process is still running: the same id with the same start time.
    package var isRunning: Bool { Self.running(pid: pid) == self }

    package var description: String { "process \(pid) (started at tick \(startTime))" }
}
