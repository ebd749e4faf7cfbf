#if Tool
/// Runs work on a list of items, `jobs` at a time, and hands the results back in the order of the
/// items, each as soon as it and every one before it are done.
enum IngestQueue {
    /// Calls `work` for every item, at most `jobs` at once, and `report(index, item, result)` in
    /// item order on the calling task. The first error thrown by `work` (in item order: results
    /// before it are still reported) cancels the rest and is rethrown.
    static func run<Item: Sendable, Result: Sendable>(
        _ items: [Item], jobs: Int,
        work: @escaping @Sendable (Item) async throws -> Result,
        report: (Int, Item, Result) throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, Swift.Result<Result, any Error>).self) { group in
            var next = 0
            func submit() {
                let index = next
                let item = items[index]
                next += 1
                group.addTask {
                    do {
                        return (index, .success(try await work(item)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<min(max(jobs, 1), items.count) { submit() }
            var finished: [Int: Swift.Result<Result, any Error>] = [:]
            var reported = 0
            while let (index, result) = try await group.next() {
                finished[index] = result
                while let result = finished.removeValue(forKey: reported) {
                    switch result {
                    case .success(let value):
                        try report(reported, items[reported], value)
                    case .failure(let error):
                        group.cancelAll()
                        throw error
                    }
                    reported += 1
                }
                if next < items.count { submit() }
            }
        }
    }
}
#endif
