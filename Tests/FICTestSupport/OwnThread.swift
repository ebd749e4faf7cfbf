import Foundation

/// Runs blocking work on a thread of its own, so that it holds none of the threads of Swift's
/// cooperative pool (two on a 2-core machine) that the other tests' tasks need meanwhile.
public enum OwnThread {
    /// Runs `body` on a new thread and returns what it returns.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
