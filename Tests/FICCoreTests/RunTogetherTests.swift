import Glibc
import Testing
@testable import FICCore

@Suite struct RunTogetherTests {
    /// Every index runs once, the first on the calling thread, and the call returns only after
    /// all have: the workers wait at a barrier that opens when the last arrives, so a call that
    /// ran them one after another would never return (the time limit fails it).
    @Test(.timeLimit(.minutes(10)))
    func everyIndexRunsOnceAndAllRunAtOnce() {
        let count = 4
        let arrived = ConditionBox(0)
        let seen = LockedBox<[Int]>([])
        let caller = pthread_self()
        let onCaller = LockedBox<Int?>(nil)
        WorkerThread.runTogether(count, name: "fic-test") { index in
            seen.withLockedValue { $0.append(index) }
            if pthread_equal(pthread_self(), caller) != 0 { onCaller.withLockedValue { $0 = index } }
            arrived.update { $0 += 1 }
            arrived.withLockedValue(waitingUntil: { $0 == count }) { _ in }
        }
        #expect(seen.withLockedValue { $0.sorted() } == Array(0..<count))
        #expect(onCaller.withLockedValue { $0 } == 0)
    }
}
