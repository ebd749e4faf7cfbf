import Glibc

/// Sleeps the calling thread for `duration` (at most; a signal may end the sleep early, and a
/// caller that polls simply tries again). For the few synchronous waits that poll the kernel,
/// such as for a lock another process holds, where no wake-up can be sent across processes.
package func pauseCurrentThread(_ duration: Duration) {
    guard duration > .zero else { return }
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    _ = nanosleep(&request, nil)
}
