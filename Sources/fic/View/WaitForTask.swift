#if Tool
import FICCore

/// Runs `body` on a task of its own and waits for it: for the viewer, whose commands run on the
/// main thread (which the window needs) and so cannot be async themselves. Never call it from a
/// thread of Swift's cooperative pool, which the task may need.
@discardableResult
func waitForTask<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let box = ConditionBox<Result<T, any Error>?>(nil)
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        box.update { $0 = result }
    }
    return box.withLockedValue(waitingUntil: { $0 != nil }) { $0! }
}
#endif
