import FICCore
import FICTestSupport
import Foundation
import Testing

/// The name the calling thread has, as the system shows it.
private func currentThreadName() -> String? {
    (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
}

@Suite struct WorkerThreadTests {
    @Test func aThreadRunsItsClosureUnderItsNameAndJoinsAnyNumberOfTimes() throws {
        let seen = LockedBox<String?>(nil)
        let thread = try WorkerThread(name: "fic-test-named") { seen.withLockedValue { $0 = currentThreadName() } }
        thread.join()
        thread.join()
        #expect(seen.withLockedValue { $0 } == "fic-test-named")
    }

    @Test func aLongNameIsCutToWhatLinuxKeeps() throws {
        let seen = LockedBox<String?>(nil)
        let thread = try WorkerThread(name: "fic-a-name-longer-than-fifteen-bytes") { seen.withLockedValue { $0 = currentThreadName() } }
        thread.join()
        #expect(seen.withLockedValue { $0 } == "fic-a-name-long")
    }
}

@Suite struct WorkerThreadsTests {
    @Test func workRunsOnThePoolsNamedThreadsAndReturnsItsResult() async throws {
        let pool = WorkerThreads(name: "fic-test-pool", maximumThreads: 2)
        defer { pool.stop() }
        let (name, owned) = try await pool.run { (currentThreadName(), pool.ownsCurrentThread) }
        #expect(name == "fic-test-pool" && owned)
        #expect(!pool.ownsCurrentThread)
    }

    @Test func oneThreadRunsQueuedWorkFirstComeFirstServed() async throws {
        let pool = WorkerThreads(name: "fic-test-fifo", maximumThreads: 1)
        defer { pool.stop() }
        let order = LockedBox<[Int]>([])
        for i in 0..<200 { #expect(pool.submit { order.withLockedValue { $0.append(i) } }) }
        try await waitUntil("every item has run") { order.withLockedValue { $0.count } == 200 }
        #expect(order.withLockedValue { $0 } == Array(0..<200))
        #expect(pool.threadCount <= 1)
    }

    @Test func aStoppedPoolRefusesNewWork() async throws {
        let pool = WorkerThreads(name: "fic-test-stop", maximumThreads: 1)
        pool.stop()
        #expect(!pool.submit {})
        await #expect(throws: ImageCacheError.self) { try await pool.run { 1 } }
    }
}

/// The nice value of the calling thread as the kernel reports it in `/proc/thread-self/stat`
/// (field 19), read independently of the code that set it.
private func currentThreadNiceness() -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    // Fields after the command name (which may hold spaces) start with field 3, the state.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 16 ? Int(fields[16]) : nil
}

@Suite struct WorkerThreadsNicenessTests {
    @Test func poolThreadsRunAtTheirNicenessAndOthersAreLeftAlone() async throws {
        let low = WorkerThreads(name: "fic-test-low", maximumThreads: 1, niceness: 7)
        let plain = WorkerThreads(name: "fic-test-plain", maximumThreads: 1)
        defer { low.stop(); plain.stop() }
        let base = currentThreadNiceness()
        #expect(base != nil)
        #expect(try await low.run { currentThreadNiceness() } == 7)
        #expect(try await plain.run { currentThreadNiceness() } == base)
        #expect(currentThreadNiceness() == base, "the calling thread keeps its own")
    }
}
