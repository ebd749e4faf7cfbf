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

    /// Runs throwing `body` on a new thread; returns what it returns or throws what it throws.
    /// Long synchronous loops (the fuzzers) go here, so that the async tests beside them keep
    /// the cooperative threads they need to make progress.
    public static func running<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await run { Result { try body() } }.get()
    }
}
