import FICCore
import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// A provider whose fetches wait until the test releases them, recording the order they start
/// in and how many run at once. Every URL serves the bytes of `coffee`.
final class GatedProvider: ImageSourceProvider {
    struct State {
        var started: [URL] = []
        var running = 0
        var maximumRunning = 0
        var released = Set<URL>()
        var releaseEverything = false
        var cancellations: [URL] = []
        var sawCancellation: [URL] = []
        /// Fetches waiting for their release, by a number of their own.
        var waiting: [Int: (url: URL, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextWaiter = 0

        func isReleased(_ url: URL) -> Bool { releaseEverything || released.contains(url) }

        /// Takes the waiting fetches that are released now.
        mutating func takeReleased() -> [CheckedContinuation<Void, any Error>] {
            let ready = waiting.filter { isReleased($0.value.url) }
            for key in ready.keys { waiting[key] = nil }
            return ready.values.map(\.continuation)
        }
    }

    let state = Locked(State())
    let bytes: [UInt8]
    /// Whether a cancelled fetch still waits for its release (then throws).
    let holdsThroughCancellation: Bool

    /// With `holdsThroughCancellation`, a fetch that is cancelled records it and goes on waiting
    /// until the test releases it, then throws: a provider slow to stop, so that a test can tell
    /// whether the cache waits for a cancelled fetch to end.
    init(holdsThroughCancellation: Bool = false) {
        bytes = [UInt8](try! Data(contentsOf: coffee))
        self.holdsThroughCancellation = holdsThroughCancellation
    }

    var started: [URL] { state.withLockedValue { $0.started } }
    var running: Int { state.withLockedValue { $0.running } }
    var maximumRunning: Int { state.withLockedValue { $0.maximumRunning } }
    var cancellations: [URL] { state.withLockedValue { $0.cancellations } }
    /// The fetches that saw their task cancelled, in order.
    var sawCancellation: [URL] { state.withLockedValue { $0.sawCancellation } }

    func release(_ url: URL) {
        let ready = state.withLockedValue { s in
            s.released.insert(url)
            return s.takeReleased()
        }
        for continuation in ready { continuation.resume() }
    }

    func releaseAll() {
        let ready = state.withLockedValue { s in
            s.releaseEverything = true
            return s.takeReleased()
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once the test releases `url`: resumed by the release itself, no polling. Unless
    /// `ignoringCancellation`, a cancellation of the task ends the wait with `CancellationError`
    /// (seen under the lock either when the fetch registers or by the handler, never by neither).
    private func waitForRelease(_ url: URL, ignoringCancellation: Bool) async throws {
        let id = state.withLockedValue { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLockedValue { s in
                    if s.isReleased(url) { return .success(()) }
                    if !ignoringCancellation && Task.isCancelled { return .failure(CancellationError()) }
                    s.waiting[id] = (url, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            guard !ignoringCancellation else { return }
            state.withLockedValue { $0.waiting.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        state.withLockedValue { s in
            s.started.append(url)
            s.running += 1
            s.maximumRunning = max(s.maximumRunning, s.running)
        }
        defer { state.withLockedValue { $0.running -= 1 } }
        do {
            try await waitForRelease(url, ignoringCancellation: false)
        } catch {
            state.withLockedValue { $0.sawCancellation.append(url) }
            if holdsThroughCancellation { try await waitForRelease(url, ignoringCancellation: true) }
            throw error
        }
        return .encoded(bytes)
    }

    func didCancelRequest(at url: URL, for entity: any ImageEntity) {
        state.withLockedValue { $0.cancellations.append(url) }
    }
}

/// The URL of test photo `i` (any scheme works: the provider decides what it means).
func photoURL(_ i: Int) -> URL { URL(string: "test://photos/\(i).jpg")! }

/// A photo entity with a made-up URL.
func photo(_ i: Int) -> Photo { Photo(entityID: "photo-\(i)", url: photoURL(i)) }

/// A cache of the two-format family `photos` over `provider`, with `lanes`.
func laneCache(_ dir: TemporaryDirectory, provider: any ImageSourceProvider, lanes: RequestLanes = .standard) throws -> ImageCache {
    let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), try mediumFormat()], provider: provider)
    cache.requestLanes = lanes
    return cache
}

/// An entity whose drawing records the thread it ran on and how many drawings overlapped.
struct ObservedPhoto: ImageEntity {
    final class Observations: Sendable {
        struct State {
            /// For each drawing, whether it ran on a thread of `pool`.
            var onCPUThread: [Bool] = []
            var drawing = 0
            var maximumDrawing = 0
        }
        let state = Locked(State())
        let pool: WorkerThreads?
        /// Where each drawing waits, once counted, until the test opens it (open by default).
        let gate: ThreadGate
        init(pool: WorkerThreads?, gate: ThreadGate? = nil) {
            self.pool = pool
            self.gate = gate ?? ThreadGate.opened()
        }
    }

    var entityID: String
    var url: URL
    var observations: Observations
    var sourceImageID: String { "v1" }
    func sourceImageURL(for format: ImageFormat) -> URL? { url }

    func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
        observations.state.withLockedValue { s in
            s.onCPUThread.append(observations.pool?.ownsCurrentThread ?? false)
            s.drawing += 1
            s.maximumDrawing = max(s.maximumDrawing, s.drawing)
        }
        observations.gate.wait()
        canvas.draw(source, in: CGRect(origin: .zero, size: format.size), contentMode: .aspectFill)
        observations.state.withLockedValue { $0.drawing -= 1 }
    }
}

/// A gate that threads of the cache (a CPU step, an entity's drawing) wait at until the test
/// opens it, counting who arrived: the test sees that a thread is held, and releases it, without
/// sleeping. A wait gives up after `timeout` (recorded in ``timedOut``), so that a test whose
/// expected order never comes fails instead of hanging. The default is as long as
/// ``waitUntil(_:timeout:_:sourceLocation:)``'s: the cache's CPU threads run niced, and under a
/// sanitizer with every suite running at once on two cores a held thread's test was seen to need
/// more than two minutes to reach its next step, so that a shorter gate let the held work go on
/// early and the test saw an order that the code never makes.
final class ThreadGate: Sendable {
    private struct State {
        var open = false
        var arrived = 0
        var timedOut = 0
    }
    private let state = ConditionBox(State())
    let timeout: Duration

    init(timeout: Duration = .seconds(600)) {
        self.timeout = timeout
    }

    /// Waits until the gate is open (or the timeout).
    func wait() {
        state.update { $0.arrived += 1 }
        state.withLockedValue(waitingUpTo: timeout) { s, timedOut -> Void? in
            if s.open { return () }
            if timedOut {
                s.timedOut += 1
                return ()
            }
            return nil
        }
    }

    /// A gate open from the start.
    static func opened() -> ThreadGate {
        let gate = ThreadGate()
        gate.open()
        return gate
    }

    /// Lets every waiter, and every later one, through.
    func open() {
        state.update { $0.open = true }
    }

    /// How many threads came to the gate.
    var arrived: Int { state.withLockedValue { $0.arrived } }
    /// How many gave up waiting.
    var timedOut: Int { state.withLockedValue { $0.timedOut } }
}

extension ImageCache {
    /// Holds `count` of the cache's CPU threads at `gate` (CPU steps at the highest priority),
    /// and waits until they are there.
    func holdCPUThreads(_ count: Int, at gate: ThreadGate) async throws {
        let before = gate.arrived
        for _ in 0..<count {
            lanes.queueCPUStep(at: .veryHigh) {
                gate.wait()
            } cancelled: {
            }
        }
        try await waitUntil("\(count) CPU threads are held") { gate.arrived == before + count }
    }
}
