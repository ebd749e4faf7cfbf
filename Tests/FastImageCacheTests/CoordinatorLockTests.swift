import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// Nothing slow runs under the request coordinator's lock: the lookup of an image stored by a
/// job that just ended (after a restart it checksums a whole image) is made outside it.
@Suite struct CoordinatorLockTests {
    @Test func theStoredImageIsLookedUpOutsideTheLock() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let cache = try laneCache(dir, provider: GatedProvider())
        defer { cache.close() }
        let coordinator = cache.lanes.coordinator
        let lockWasFree = Locked<Bool?>(nil)
        cache.lanes.prefetch(url: photoURL(1), entity: photo(1), format: try cache.table("medium"), priority: .low) {
            // Another thread takes the coordinator's lock: at once unless this lookup holds it
            // (then it waits until the lookup gives up, after a minute).
            let answered = DispatchSemaphore(value: 0)
            Thread {
                _ = coordinator.lanes
                answered.signal()
            }.start()
            lockWasFree.withLockedValue { $0 = answered.wait(timeout: .now() + 60) == .success }
            return nil
        }
        #expect(lockWasFree.withLockedValue { $0 } == true)
        // With nothing stored, the prefetch made its job.
        try await waitUntil("the prefetch's fetch starts") { !cache.lanes.coordinator.waiters(entityID: "photo-1", format: nil).isEmpty }
    }
}
