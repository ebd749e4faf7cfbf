import Glibc
import SystemPackage

/// How much memory and how many processors this process may use: the machine's, or less when a
/// container (a cgroup) limits it, which is where servers and CI runners usually live.
package enum MachineResources {
    /// The bytes of memory this process may use: the physical memory, or the cgroup's limit when
    /// that is lower. Read once.
    package static let memoryBytes: Int = memoryBytes(physical: physicalMemoryBytes(), cgroupLimits: cgroupMemoryLimits())

    /// Processors online (at least 1).
    package static let processorCount: Int = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    /// The smaller of `physical` and every limit in `cgroupLimits` (nil: none).
    package static func memoryBytes(physical: Int, cgroupLimits: [Int]) -> Int {
        cgroupLimits.reduce(max(physical, 1)) { min($0, max($1, 1)) }
    }

    /// `sysconf`'s physical pages × the page size (0 when unknown).
    static func physicalMemoryBytes() -> Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        guard pages > 0 else { return 0 }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: systemPageSize)
        return overflow ? Int.max : bytes
    }

    /// The memory limits of this process's cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`).
    static func cgroupMemoryLimits() -> [Int] {
        ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"].compactMap { path in
            FileDescriptor.smallText(atPath: path, limit: 64).flatMap(parseCgroupLimit)
        }
    }

    /// A cgroup limit file's value: a number of bytes, or nil for `max` (no limit), for v1's "no
    /// limit" (a huge number near `Int.max`) and for anything unreadable.
    package static func parseCgroupLimit(_ text: String) -> Int? {
        let trimmed = text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init) ?? ""
        guard let value = Int(trimmed), value > 0, value < 1 << 60 else { return nil }
        return value
    }
}
