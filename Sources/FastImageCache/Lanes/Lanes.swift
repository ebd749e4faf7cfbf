import FICCore
import Foundation
import Logging

/// A cache's request lanes, whole: the ``RequestCoordinator``'s state machine, the CPU threads,
/// and the two stages a job passes through — ``FetchStage`` on a fetch slot, then
/// ``DecodeDrawStage`` on a CPU thread.
///
/// Every method asks the coordinator once, under its lock, and then carries out the effects it
/// returned (start fetches, wake CPU threads, resume callers, cancel tasks, tell the provider)
/// with the lock released. ``ImageCache`` keeps the public methods and hands each request here
/// in one call.
final class Lanes: Sendable {
    /// The state machine (internal for tests that observe waiters and priorities).
    let coordinator: RequestCoordinator
    /// The threads that decode and draw (internal for tests that observe them).
    let cpu: WorkerThreads
    private let fetching: FetchStage
    private let decoding: DecodeDrawStage
    private let logger: Logger
    /// Animations whose frames after the first are queued or being stored.
    private let storingFrames = LockedBox(0)

    /// Lanes of `widths` drawing through `policy`.
    init(policy: FamilyPolicy, logger: Logger, widths: RequestLanes = .standard) {
        coordinator = RequestCoordinator(lanes: widths)
        cpu = WorkerThreads(name: "fic-cpu", maximumThreads: widths.cpuWorkers, niceness: Int32(widths.cpuNiceness))
        fetching = FetchStage(provider: policy.provider, counters: policy.counters)
        decoding = DecodeDrawStage(policy: policy, logger: logger)
        self.logger = logger
    }

    // MARK: Requests

    /// Waits for the image of `entity` in `format`, from the job of `url` (joined or made);
    /// `alreadyStored` is asked when no job exists (outside the coordinator's lock, and again if
    /// a job ended meanwhile), so that an image stored by a job that just ended is returned
    /// rather than made again. Cancelling the calling task removes its waiter.
    func image(
        url: URL, entity: any ImageEntity, format: FormatTable, priority: RequestPriority,
        alreadyStored: () -> CachedImage?
    ) async throws -> CachedImage {
        let handle = RequestHandle()
        return try await withTaskCancellationHandler {
            try await handle.handoff.wait {
                let (id, effects) = coordinator.register(
                    url: url, entity: entity, format: format, priority: priority,
                    handle: handle, alreadyStored: alreadyStored)
                perform(effects)
                if let id {
                    handle.id = id
                    if Task.isCancelled { perform(coordinator.cancel(waiter: id)) }
                }
            }
        } onCancel: {
            if let id = handle.id { perform(coordinator.cancel(waiter: id)) }
        }
    }

    /// Adds a prefetch of `entity` in `format` to the job of `url` (joined or made); nothing
    /// when `alreadyStored` finds the image.
    func prefetch(url: URL, entity: any ImageEntity, format: FormatTable, priority: RequestPriority, alreadyStored: () -> CachedImage?) {
        let (_, effects) = coordinator.register(
            url: url, entity: entity, format: format, priority: priority,
            handle: nil, alreadyStored: alreadyStored)
        perform(effects)
    }

    /// Sets the priority of the waiters of `entityID` in `format` (every format when nil) to
    /// `change(old)`.
    func changePriority(entityID: String, format: String?, _ change: (RequestPriority) -> RequestPriority) {
        perform(coordinator.changePriority(entityID: entityID, format: format, change))
    }

    /// Cancels the waiters of `entityID` in `format` (every format when nil), or only its
    /// prefetches.
    func cancel(entityID: String, format: String?, prefetchesOnly: Bool) {
        for (id, _) in coordinator.waiters(entityID: entityID, format: format, prefetchesOnly: prefetchesOnly) {
            perform(coordinator.cancel(waiter: id))
        }
    }

    /// The lanes' widths. Setting it changes the fetch widths at once; the CPU threads are
    /// fixed when the lanes are made.
    var widths: RequestLanes {
        get { coordinator.lanes }
        set { perform(coordinator.setLanes(newValue)) }
    }

    /// What the lanes hold now.
    var statistics: RequestQueueStatistics {
        var statistics = coordinator.statistics
        statistics.storingFrames = storingFrames.withLockedValue { $0 }
        return statistics
    }

    /// Runs `body` on a CPU thread at `priority`, in order with the requests' decodes. Work
    /// already queued runs even if the calling task is cancelled.
    ///
    /// - Throws: what `body` throws, or `.closed` once the lanes are closed.
    func run<T: Sendable>(at priority: RequestPriority, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let handoff = Handoff<T>()
        return try await handoff.wait {
            queueCPUStep(at: priority) {
                handoff.deliver(Result { try body() })
            } cancelled: {
                handoff.deliver(.failure(ImageCacheError(.closed, "the cache was closed before the work ran")))
            }
        }
    }

    /// Queues `step` for a CPU thread at `priority`, in order with the requests' decodes (a step
    /// of the slow lane's priorities waits behind every fast-lane decode queued); `cancelled` is
    /// called instead when the lanes close first, or at once when they are closed.
    func queueCPUStep(at priority: RequestPriority, _ step: @escaping @Sendable () -> Void, cancelled: @escaping @Sendable () -> Void) {
        if coordinator.enqueueCPU(at: priority, run: step, cancel: cancelled) {
            cpu.submit { self.runCPUWork() }
        } else {
            cancelled()
        }
    }

    // MARK: Animations

    /// Stores the frames after the first of an animation on the slow lane: one frame per CPU
    /// step, each step queued at `.low` when the one before has ended. A fast-lane decode queued
    /// meanwhile runs before the next frame, so a visible cell waits for at most one frame's
    /// decode and draws, never for a whole animation; the decoder goes on where it stopped, so
    /// nothing is decoded twice. Closing the lanes abandons the frames not stored
    /// (``RemainingFrames/abandon()``).
    func storeRemainingFrames(_ frames: RemainingFrames) {
        storingFrames.withLockedValue { $0 += 1 }
        queueFrameStep(HandedOver(value: frames))
    }

    private func queueFrameStep(_ frames: HandedOver<RemainingFrames>) {
        // One user at a time: a step queues the next only once it has ended, and the CPU queue's
        // lock orders that end before the next step's start (or before the cancellation).
        queueCPUStep(at: .low) { [self] in
            if frames.value.storeNextFrame() {
                queueFrameStep(frames)
            } else {
                for error in frames.value.finish() { logger.debug("storing an animation's frame failed: \(error)") }
                storingFrames.withLockedValue { $0 -= 1 }
            }
        } cancelled: { [self] in
            frames.value.abandon()
            storingFrames.withLockedValue { $0 -= 1 }
        }
    }

    /// Asks for the source at `url` of `entity` at `priority` — the job of `url` is joined or
    /// made, as a request's, so it is fetched in its lane like any — and hands it to `handler`
    /// once fetched (on a CPU thread), or why there is none (`.cancelled`, `.closed`, the
    /// provider's error). For a ring, which decodes an animation's frames itself.
    func fetchSource(
        url: URL, entity: any ImageEntity, format: FormatTable, priority: RequestPriority,
        handler: @escaping RequestCoordinator.SourceHandler
    ) {
        let (_, effects) = coordinator.register(
            url: url, entity: entity, format: format, priority: priority,
            handle: nil, sourceWanted: handler, alreadyStored: { nil })
        perform(effects)
    }

    /// Fails every waiter with `.closed`, cancels every fetch, refuses new work, and lets the
    /// CPU threads end once the work they have is done.
    func close() {
        coordinator.cancelAll()
        cpu.stop()
    }

    // MARK: Carrying out

    /// Carries out what the coordinator decided: starts fetches, wakes CPU threads, resumes
    /// callers, cancels fetches and tells the provider.
    private func perform(_ effects: RequestCoordinator.Effects) {
        for task in effects.cancelledTasks { task.cancel() }
        for (url, entity) in effects.abandoned { fetching.abandoned(url, for: entity) }
        for (handle, result) in effects.resumes { handle.deliver(result) }
        for (url, error) in effects.failedPrefetches {
            logger.debug("prefetch failed: \(error)", metadata: ["url": "\(url.absoluteString)"])
        }
        for (handler, error) in effects.sourceFailures { handler(.failure(error)) }
        for start in effects.starts {
            let task = Task(priority: start.priority.taskPriority) {
                let result = await self.fetching.fetch(start.url, for: start.entity)
                self.perform(self.coordinator.fetched(start.job, result))
            }
            coordinator.attach(task, to: start.job)
        }
        for _ in 0..<effects.cpuWakeups {
            cpu.submit { self.runCPUWork() }
        }
    }

    /// Runs the most urgent CPU work: a job's decode and draws, or queued work.
    private func runCPUWork() {
        let (work, effects) = coordinator.nextCPUWork()
        perform(effects)
        switch work {
        case nil:
            return
        case .work(let body):
            body()
        case .job(let id, let source):
            decoding.process(
                source,
                nextBatch: {
                    // Waiters for the source itself are given it here; the others are drawn for.
                    while true {
                        let (batch, effects) = coordinator.takeWaiters(of: id)
                        perform(effects)
                        for w in batch { w.sourceWanted?(.success(source)) }
                        let drawn = batch.filter { $0.sourceWanted == nil }
                        if !drawn.isEmpty || batch.isEmpty { return drawn }
                    }
                }, storeLater: { storeRemainingFrames($0) })
        }
    }
}
