import FICCore
import FICTestSupport
import Testing

/// Threads that hand values to each other through a ``ConditionBox``. The test waits for what the
/// threads report, each wait bounded by `waitUntil`'s time limit; nothing is timed.
@Suite struct ConditionBoxTests {
    /// A queue of at most four items between a producer and a consumer thread.
    struct Channel {
        var items: [Int] = []
        var ended = false
        /// The most items queued at once.
        var peak = 0
    }

    @Test func aProducerWaitsForRoomAndAConsumerForItemsAndEveryItemArrivesInOrder() async throws {
        let channel = ConditionBox(Channel())
        let seen = LockedBox<[Int]>([])
        let finished = LockedBox(0)
        let producer = try WorkerThread(name: "fic-test-prod") {
            for i in 0..<2000 {
                channel.withLockedValue(waitingUntil: { $0.items.count < 4 }) { _ in }
                channel.update { c in
                    c.items.append(i)
                    c.peak = max(c.peak, c.items.count)
                }
            }
            channel.update { $0.ended = true }
            finished.withLockedValue { $0 += 1 }
        }
        let consumer = try WorkerThread(name: "fic-test-cons") {
            while true {
                let batch: [Int]? = channel.withLockedValue(waitingUntil: { !$0.items.isEmpty || $0.ended }) { c in
                    guard !c.items.isEmpty else { return nil }  // ended, and everything taken
                    defer { c.items.removeAll() }
                    return c.items
                }
                guard let batch else { break }
                channel.update { _ in }  // room for the producer
                seen.withLockedValue { $0 += batch }
            }
            finished.withLockedValue { $0 += 1 }
        }
        try await waitUntil("both threads have finished") { finished.withLockedValue { $0 } == 2 }
        guard finished.withLockedValue({ $0 }) == 2 else { return }  // a thread is stuck: the issue is recorded
        producer.join()
        consumer.join()
        #expect(seen.withLockedValue { $0 } == Array(0..<2000))
        #expect(channel.withLockedValue { $0.peak } <= 4, "the producer waited for room")
    }

    @Test func aTimedWaitEndsWhenTheValueChanges() async throws {
        let box = ConditionBox(0)
        let outcome = LockedBox<(value: Int, timedOut: Bool)?>(nil)
        let waiter = try WorkerThread(name: "fic-test-wait") {
            // An hour: only the change can end this wait in a passing run.
            let result = box.withLockedValue(waitingUpTo: .seconds(3600)) { value, timedOut in
                value != 0 || timedOut ? (value, timedOut) : nil
            }
            outcome.withLockedValue { $0 = result }
        }
        box.update { $0 = 7 }
        try await waitUntil("the waiter has returned") { outcome.withLockedValue { $0 } != nil }
        guard let result = outcome.withLockedValue({ $0 }) else { return }
        waiter.join()
        #expect(result.value == 7 && !result.timedOut)
    }

    @Test func aTimedWaitWithNoChangeIsToldItTimedOut() {
        let box = ConditionBox(0)
        var calls: [Bool] = []
        let result = box.withLockedValue(waitingUpTo: .milliseconds(1)) { _, timedOut -> Bool? in
            calls.append(timedOut)
            return timedOut ? true : nil
        }
        #expect(result)
        #expect(calls.first == false && calls.last == true, "called first at once, last after the clock ran out: \(calls)")
    }
}
