import FICCore
import FICTestSupport
import Testing

/// A ``WaiterQueue`` handing out units of a pool: the state is the units free in each line.
private func pool(_ free: [Int: Int]) -> WaiterQueue<Int, [Int: Int]> {
    WaiterQueue(free) { free, line, amount in
        guard free[line, default: 0] >= amount else { return false }
        free[line, default: 0] -= amount
        return true
    }
}

/// Gives `amount` back to `line` of `queue`.
private func give(_ amount: Int, to line: Int, of queue: WaiterQueue<Int, [Int: Int]>) {
    queue.update(granting: line) { $0[line, default: 0] += amount }
}

/// Waits are bounded by `waitUntil`'s time limit (or the test's); the order of grants is what is
/// checked, never how long anything took.
@Suite struct WaiterQueueTests {
    @Test func waitersAreGrantedFirstComeFirstServed() async throws {
        let queue = pool([0: 0])
        let order = LockedBox<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<6 {
                group.addTask {
                    try await queue.wait(in: 0, for: 1)
                    order.withLockedValue { $0.append(i) }
                }
                // Queued before the next comes.
                try await waitUntil("waiter \(i) is queued") { queue.waitingCount == i + 1 }
            }
            for granted in 1...6 {
                give(1, to: 0, of: queue)
                try await waitUntil("\(granted) waiters have gone") { order.withLockedValue { $0.count } == granted }
            }
            try await group.waitForAll()
        }
        #expect(order.withLockedValue { $0 } == Array(0..<6))
        #expect(queue.read { $0[0] } == 0 && queue.waitingCount == 0)
    }

    @Test func nobodyOvertakesTheHeadOfTheLineButOtherLinesGoOn() async throws {
        let queue = pool([0: 1, 1: 0])
        let order = LockedBox<[String]>([])
        async let big: Void = {
            try await queue.wait(in: 0, for: 3); order.withLockedValue { $0.append("big") }
        }()
        try await waitUntil("the big claim is queued") { queue.waitingCount == 1 }
        async let small: Void = {
            try await queue.wait(in: 0, for: 1); order.withLockedValue { $0.append("small") }
        }()
        try await waitUntil("the small claim is queued behind it, though it would fit") { queue.waitingCount == 2 }
        #expect(!queue.tryTake(in: 0, 1), "nobody takes past waiters")
        // Another line is not held up by this one.
        async let other: Void = {
            try await queue.wait(in: 1, for: 1); order.withLockedValue { $0.append("other") }
        }()
        try await waitUntil("the other line's waiter is queued") { queue.waitingCount == 3 }
        give(1, to: 1, of: queue)
        try await other
        give(2, to: 0, of: queue)
        try await big
        give(3, to: 0, of: queue)
        try await small
        #expect(order.withLockedValue { $0 } == ["other", "big", "small"])
        #expect(queue.read { $0 } == [0: 2, 1: 0])
    }

    @Test func theMostUrgentWaiterGoesFirstThenFirstCome() async throws {
        let queue = pool([0: 0])
        let order = LockedBox<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, (name, urgency)) in [("low", 1), ("high-1", 5), ("mid", 3), ("high-2", 5)].enumerated() {
                group.addTask {
                    try await queue.wait(in: 0, for: 1, urgency: urgency)
                    order.withLockedValue { $0.append(name) }
                }
                try await waitUntil("\(name) is queued") { queue.waitingCount == i + 1 }
            }
            for granted in 1...4 {
                give(1, to: 0, of: queue)
                try await waitUntil("\(granted) waiters have gone") { order.withLockedValue { $0.count } == granted }
            }
            try await group.waitForAll()
        }
        #expect(order.withLockedValue { $0 } == ["high-1", "high-2", "mid", "low"])
    }

    @Test func cancellingTheHeadTakesNothingAndLetsTheNextIn() async throws {
        let queue = pool([0: 1])
        let head = Task { try await queue.wait(in: 0, for: 2) }
        try await waitUntil("the head is queued") { queue.waitingCount == 1 }
        async let next: Void = queue.wait(in: 0, for: 1)
        try await waitUntil("the next is queued behind it") { queue.waitingCount == 2 }
        head.cancel()
        let result = await head.result
        #expect(throws: CancellationError.self) { try result.get() }
        // The unit that was free all along goes to the waiter the head held back.
        try await next
        #expect(queue.read { $0[0] } == 0 && queue.waitingCount == 0)
    }

    @Test func aTaskCancelledBeforeItWaitsTakesNothingEvenWhenThereIsRoom() async throws {
        let queue = pool([0: 5])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.wait(in: 0, for: 1)
        }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(queue.read { $0[0] } == 5 && queue.waitingCount == 0)
    }

    /// Many tasks take and give back units of two lines at once: if a release could slip between
    /// a waiter's check and its queueing, a waiter would be left behind and the group would never
    /// end (the test's time limit fails it).
    @Test(.timeLimit(.minutes(2))) func noWakeUpIsLostUnderContention() async throws {
        let limit = 3
        let queue = pool([0: limit, 1: limit])
        let inUse = LockedBox([0: 0, 1: 0])
        let over = LockedBox(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<400 {
                let line = i % 2
                group.addTask {
                    try await queue.wait(in: line, for: 1)
                    inUse.withLockedValue { u in
                        u[line, default: 0] += 1
                        if u[line, default: 0] > limit { over.withLockedValue { $0 = true } }
                    }
                    await Task.yield()
                    inUse.withLockedValue { $0[line, default: 0] -= 1 }
                    give(1, to: line, of: queue)
                }
            }
            try await group.waitForAll()
        }
        #expect(!over.withLockedValue { $0 })
        #expect(queue.read { $0 } == [0: limit, 1: limit] && queue.waitingCount == 0)
    }
}
