#if Tool
import Foundation

/// Monotonic time in nanoseconds.
package enum Stopwatch {
    /// Nanoseconds since an arbitrary fixed point (`CLOCK_MONOTONIC`).
    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Nanoseconds since `start`.
    package static func elapsed(since start: UInt64) -> UInt64 { now() &- start }
}
#endif
