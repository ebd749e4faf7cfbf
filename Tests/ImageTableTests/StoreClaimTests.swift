import FICCore
import FICHarness
import FICTestSupport
import Foundation
import Glibc
import Testing
@testable import ImageTable

/// Claims of the making of an entity's images (``StoreClaim``): one holder per entity among the
/// threads and processes that claim through one table file; the others wait until it lets go,
/// closes or dies, and a claim of another entity never waits.
@Suite final class StoreClaimTests {
    let dir = TemporaryDirectory("store-claim")
    deinit { dir.cleanup() }

    var path: String { dir.file("t.fictable") }

    /// Claims `entity` on a thread of its own; `waiting` and `claimed` say how far it got.
    final class Claimer: Sendable {
        let waiting = LockedBox(false)
        let claim = LockedBox<StoreClaim??>(nil)

        init(_ table: ImageTable, _ entity: TableKey, timeout: Duration = .seconds(600)) {
            let waiting = self.waiting, claim = self.claim
            Thread {
                let made = table.claimStoring(entity, timeout: timeout) { waiting.withLockedValue { $0 = true } }
                claim.withLockedValue { $0 = .some(made) }
            }.start()
        }

        var isWaiting: Bool { waiting.withLockedValue { $0 } }
        /// nil while it waits; then the claim (nil inside when none was made).
        var result: StoreClaim?? { claim.withLockedValue { $0 } }
    }

    @Test func anotherThreadWaitsForTheClaimUntilItIsLetGo() async throws {
        let t = try ImageTable(path: path, configuration: config())
        let first = try #require(t.claimStoring(key("x"), timeout: .seconds(1)))
        #expect(!first.waited, "nobody held it")
        let second = Claimer(t, key("x"))
        try await waitUntil("the second claimer waits") { second.isWaiting }
        #expect(second.result == nil, "it cannot have the claim while the first holds it")
        first.release()
        try await waitUntil("the second claimer has the claim") { second.result != nil }
        let claim = try #require(second.result ?? nil)
        #expect(claim.waited, "it says that it waited, so that its holder looks again for the images")
        claim.release()
        #expect(t.claimStoring(key("x"), timeout: .zero) != nil, "released, it can be claimed at once")
    }

    @Test func aClaimOfAnotherEntityNeverWaitsAndAnotherTableObjectIsKeptOut() throws {
        let t = try ImageTable(path: path, configuration: config())
        let x = try #require(t.claimStoring(key("x"), timeout: .zero))
        let y = try #require(t.claimStoring(key("y"), timeout: .zero), "another entity's byte")
        #expect(!x.waited && !y.waited)
        let other = try ImageTable(path: path, configuration: config())
        #expect(other.claimStoring(key("x"), timeout: .zero) == nil, "another table object on the file conflicts as another process does")
        x.release()
        #expect(other.claimStoring(key("x"), timeout: .zero) != nil)
    }

    @Test func aDroppedClaimIsLetGoAndAClosedOrReadOnlyTableClaimsNothing() throws {
        let t = try ImageTable(path: path, configuration: config())
        do { _ = t.claimStoring(key("x"), timeout: .zero) }
        #expect(t.claimStoring(key("x"), timeout: .zero) != nil, "the dropped claim was let go")
        let reader = try ImageTable(path: path, configuration: config(), options: TableOpenOptions(readOnly: true))
        #expect(reader.claimStoring(key("y"), timeout: .zero) == nil, "a reader stores nothing, so it claims nothing")
        t.close()
        #expect(t.claimStoring(key("x"), timeout: .zero) == nil)
    }

    @Test func theClaimOfAKilledProcessEndsWithIt() async throws {
        let c = SelfTestTable.configuration(max: 40)
        let t = try ImageTable(path: path, configuration: c)
        let holder = try CrashRecoveryTests.Writer(path, max: 40, seed: 1, extra: ["--claim", "entity-7", "--wait-seconds", "60"])
        defer { if holder.isRunning { holder.kill() } }
        #expect(await holder.line().hasPrefix("ready"))
        #expect(await holder.line() == "claimed")
        let waiter = Claimer(t, TableKey("entity-7"))
        try await waitUntil("the test waits for the other process's claim") { waiter.isWaiting }
        #expect(t.claimStoring(TableKey("entity-8"), timeout: .zero) != nil, "another entity is free")
        holder.kill()
        try await waitUntil("the claim is this process's once the holder is dead") { waiter.result != nil }
        #expect((waiter.result ?? nil)?.waited == true)
    }
}
