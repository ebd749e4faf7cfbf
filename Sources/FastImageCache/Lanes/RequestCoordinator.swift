import FICCore
import Foundation

/// The cache's request path as one state machine: a coalescer of requests by source URL, and
/// the lanes their jobs run in.
///
/// Every request for a source URL joins that URL's *job*, whose priority is the highest of its
/// waiters' (callers and prefetches) and follows them as they come, go or change. A job is
/// queued for a fetch slot of its lane (fast: parallel; slow: serial, and paused while the fast
/// lane has work), fetched by the provider, queued for the CPU, then decoded and drawn on the
/// cache's own threads, highest priority first at every step. A job whose last waiter goes is
/// dropped from its queue, or its fetch is cancelled; it keeps its fetch slot until the fetch
/// has actually ended, so the lanes' bounds hold even for slow cancellations.
///
/// All state is in one ``LockedBox``. Methods change it and return the ``Effects`` to carry out
/// once the lock is released (start fetches, wake CPU threads, resume callers, cancel tasks);
/// ``Lanes`` owns it and carries them out.
final class RequestCoordinator: Sendable {
    /// Someone waiting for an image of a job: a caller, or a prefetch (no handle); or for the
    /// job's source itself (a ring that decodes an animation's frames ahead).
    struct Waiter {
        let id: UInt64
        let entity: any ImageEntity
        let format: FormatTable
        var priority: RequestPriority
        let handle: RequestHandle?
        /// Given the fetched source (or why there is none) instead of an image.
        let sourceWanted: SourceHandler?

        init(
            id: UInt64, entity: any ImageEntity, format: FormatTable, priority: RequestPriority, handle: RequestHandle?,
            sourceWanted: SourceHandler? = nil
        ) {
            self.id = id
            self.entity = entity
            self.format = format
            self.priority = priority
            self.handle = handle
            self.sourceWanted = sourceWanted
        }

        var isPrefetch: Bool { handle == nil && sourceWanted == nil }
    }

    /// What a waiter for a source is given: the source, or why there is none.
    typealias SourceHandler = @Sendable (Result<SourceImage, any Error>) -> Void

    /// Where a job is.
    enum Phase {
        case queued, fetching, fetched, processing
    }

    /// One source URL's fetch, decode and draws.
    struct Job {
        let id: UInt64
        let url: URL
        let entity: any ImageEntity
        var waiters: [UInt64: Waiter] = [:]
        var priority: RequestPriority
        var phase = Phase.queued
        /// The queue entry that is current; older entries of the job are stale.
        var ticket: UInt64 = 0
        /// The fetch slot held while fetching.
        var slot: RequestLane?
        var task: Task<Void, Never>?
        var source: SourceImage?
        /// Every waiter has gone while the fetch or the decode ran; the job ends with them.
        var abandoned = false

        init(id: UInt64, url: URL, entity: any ImageEntity, priority: RequestPriority) {
            self.id = id
            self.url = url
            self.entity = entity
            self.priority = priority
        }
    }

    struct QueueEntry {
        let job: UInt64
        let ticket: UInt64
    }

    /// Work for a CPU thread.
    enum CPUEntry {
        case job(QueueEntry)
        /// Work queued by ``enqueueCPU(at:run:cancel:)``, and what to do if it never runs.
        case work(run: @Sendable () -> Void, cancel: @Sendable () -> Void)
    }

    /// What a CPU thread is handed.
    enum CPUWork {
        case job(id: UInt64, source: SourceImage)
        case work(@Sendable () -> Void)
    }

    /// A fetch to start.
    struct FetchStart {
        let job: UInt64
        let url: URL
        let entity: any ImageEntity
        let priority: RequestPriority
    }

    /// What to do once the lock is released.
    struct Effects {
        var starts: [FetchStart] = []
        var cpuWakeups = 0
        var resumes: [(RequestHandle, Result<CachedImage, any Error>)] = []
        var cancelledTasks: [Task<Void, Never>] = []
        /// Fetches abandoned by their last waiter: the provider is told.
        var abandoned: [(URL, any ImageEntity)] = []
        /// Prefetches whose job failed, for the log.
        var failedPrefetches: [(URL, any Error)] = []
        /// Waiters for a source told that there is none.
        var sourceFailures: [(SourceHandler, any Error)] = []
    }

    struct State {
        var lanes: RequestLanes
        var jobs: [UInt64: Job] = [:]
        var byURL: [URL: UInt64] = [:]
        /// Jobs ended so far: a lookup made outside the lock is current while this is unchanged.
        var jobsEnded: UInt64 = 0
        var waiterJob: [UInt64: UInt64] = [:]
        var byEntity: [String: Set<UInt64>] = [:]
        var fetchQueue = PriorityQueues<QueueEntry>()
        var cpuQueue = PriorityQueues<CPUEntry>()
        var queuedFast = 0
        var queuedSlow = 0
        var fetchingFast = 0
        var fetchingSlow = 0
        var awaitingDecode = 0
        var decoding = 0
        var promotions = 0
        var demotions = 0
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state: LockedBox<State>

    init(lanes: RequestLanes) {
        state = LockedBox(State(lanes: lanes))
    }

    // MARK: Requests

    /// Adds a waiter for (`entity`, `format`) to the job of `url`, making the job if there is
    /// none. A prefetch (`handle` nil) that duplicates one already waiting only raises its
    /// priority. Returns the waiter's id, or nil when the request was answered at once (the
    /// image was stored meanwhile, the cache is closed) or merged into another prefetch.
    ///
    /// `alreadyStored` (a table lookup, which after a restart checksums a whole image) is asked
    /// outside the lock, when no job exists; a job that ends meanwhile may have stored the image,
    /// so it is asked again then (up to a few times; after that a second job is only extra work).
    func register(
        url: URL, entity: any ImageEntity, format: FormatTable, priority: RequestPriority,
        handle: RequestHandle?, sourceWanted: SourceHandler? = nil, alreadyStored: () -> CachedImage?
    ) -> (UInt64?, Effects) {
        var e = Effects()
        var stored: (image: CachedImage?, asOf: UInt64)?
        var lookups = 0
        while true {
            switch register(
                url: url, entity: entity, format: format, priority: priority, handle: handle, sourceWanted: sourceWanted,
                stored: stored, trustingStale: lookups >= 3, &e)
            {
            case .done(let id):
                return (id, e)
            case .lookUp(let generation):
                stored = (alreadyStored(), generation)
                lookups += 1
            }
        }
    }

    /// What one pass of registering under the lock came to.
    private enum Registration {
        /// Registered (the waiter's id), answered or merged (nil).
        case done(UInt64?)
        /// No job, and no lookup made since the `jobsEnded` given: look the image up and come back.
        case lookUp(UInt64)
    }

    private func register(
        url: URL, entity: any ImageEntity, format: FormatTable, priority: RequestPriority, handle: RequestHandle?,
        sourceWanted: SourceHandler?, stored: (image: CachedImage?, asOf: UInt64)?, trustingStale: Bool,
        _ e: inout Effects
    ) -> Registration {
        state.withLockedValue { s in
            if s.closed {
                let error = ImageCacheError(.closed, "the cache is closed", format: format.format.name)
                if let handle { e.resumes.append((handle, .failure(error))) }
                if let sourceWanted { e.sourceFailures.append((sourceWanted, error)) }
                return .done(nil)
            }
            if let jobID = s.byURL[url], var job = s.jobs[jobID] {
                if handle == nil, sourceWanted == nil,
                    let twin = job.waiters.values.first(where: {
                        $0.isPrefetch && $0.entity.entityID == entity.entityID && $0.format === format
                    })
                {
                    job.waiters[twin.id]?.priority = max(twin.priority, priority)
                    s.jobs[jobID] = job
                    reprioritize(jobID, &s)
                    schedule(&s, &e)
                    return .done(nil)
                }
                s.nextID += 1
                let waiter = Waiter(
                    id: s.nextID, entity: entity, format: format, priority: priority, handle: handle, sourceWanted: sourceWanted)
                job.waiters[waiter.id] = waiter
                s.jobs[jobID] = job
                index(waiter, job: jobID, &s)
                reprioritize(jobID, &s)
                schedule(&s, &e)
                return .done(waiter.id)
            }
            // No job: the image may have been stored by a job that just ended.
            if sourceWanted == nil {
                guard let stored, stored.asOf == s.jobsEnded || trustingStale else { return .lookUp(s.jobsEnded) }
                if let image = stored.image {
                    if let handle { e.resumes.append((handle, .success(image))) }
                    return .done(nil)
                }
            }
            s.nextID += 1
            let jobID = s.nextID
            s.nextID += 1
            let waiter = Waiter(
                id: s.nextID, entity: entity, format: format, priority: priority, handle: handle, sourceWanted: sourceWanted)
            var job = Job(id: jobID, url: url, entity: entity, priority: priority)
            job.waiters[waiter.id] = waiter
            s.jobs[jobID] = job
            s.byURL[url] = jobID
            index(waiter, job: jobID, &s)
            enqueueFetch(jobID, &s)
            schedule(&s, &e)
            return .done(waiter.id)
        }
    }

    /// Removes a waiter; a caller's request throws `.cancelled`. When it was the job's last, the
    /// job is dropped from its queue, or its fetch is cancelled and the provider told.
    func cancel(waiter id: UInt64) -> Effects {
        var e = Effects()
        state.withLockedValue { s in
            removeWaiter(id, &s, &e)
            schedule(&s, &e)
        }
        return e
    }

    /// Changes the priority of the waiters of `entityID` (in `format`, or every format when nil)
    /// to `change(old)`; their jobs move between queues and lanes as needed.
    func changePriority(entityID: String, format: String?, prefetchesOnly: Bool = false, _ change: (RequestPriority) -> RequestPriority)
        -> Effects
    {
        var e = Effects()
        state.withLockedValue { s in
            var touched = Set<UInt64>()
            for id in s.byEntity[entityID] ?? [] {
                guard let jobID = s.waiterJob[id], let w = s.jobs[jobID]?.waiters[id] else { continue }
                guard format == nil || w.format.format.name == format, !prefetchesOnly || w.isPrefetch else { continue }
                s.jobs[jobID]?.waiters[id]?.priority = change(w.priority)
                touched.insert(jobID)
            }
            for jobID in touched { reprioritize(jobID, &s) }
            schedule(&s, &e)
        }
        return e
    }

    /// The ids and URLs of waiters for `entityID` in `format` (nil: any format); with
    /// `prefetchesOnly`, only prefetches.
    func waiters(entityID: String, format: String?, prefetchesOnly: Bool = false) -> [(UInt64, URL)] {
        state.withLockedValue { s in
            (s.byEntity[entityID] ?? []).compactMap { id -> (UInt64, URL)? in
                guard let jobID = s.waiterJob[id], let job = s.jobs[jobID], let w = job.waiters[id] else { return nil }
                guard format == nil || w.format.format.name == format, !prefetchesOnly || w.isPrefetch else { return nil }
                return (id, job.url)
            }
        }
    }

    /// The priority of the job of `url`, if there is one (for tests and tools).
    func priority(of url: URL) -> RequestPriority? {
        state.withLockedValue { s in s.byURL[url].flatMap { s.jobs[$0]?.priority } }
    }

    // MARK: The lanes at work

    /// Records the task fetching `job`; cancels it at once if the job was abandoned meanwhile.
    func attach(_ task: Task<Void, Never>, to job: UInt64) {
        let keep = state.withLockedValue { s -> Bool in
            guard let j = s.jobs[job], j.phase == .fetching, !j.abandoned, !s.closed else { return false }
            s.jobs[job]?.task = task
            return true
        }
        if !keep { task.cancel() }
    }

    /// A fetch ended: frees its slot, then queues the source for the CPU, or fails every
    /// waiter with the fetch's error.
    func fetched(_ jobID: UInt64, _ result: Result<SourceImage, any Error>) -> Effects {
        var e = Effects()
        state.withLockedValue { s in
            guard var job = s.jobs[jobID] else { return }
            if job.slot == .fast { s.fetchingFast -= 1 } else if job.slot == .slow { s.fetchingSlow -= 1 }
            job.slot = nil
            job.task = nil
            defer { schedule(&s, &e) }
            if job.abandoned || s.closed {
                s.jobs[jobID] = nil
                return
            }
            switch result {
            case .success(let source):
                job.source = source
                job.phase = .fetched
                job.ticket += 1
                s.cpuQueue.push(.job(QueueEntry(job: jobID, ticket: job.ticket)), at: job.priority)
                s.awaitingDecode += 1
                s.jobs[jobID] = job
                e.cpuWakeups += 1
            case .failure(let error):
                s.jobs[jobID] = nil
                forgetURL(of: job, jobID, &s)
                for w in job.waiters.values {
                    unindex(w, &s)
                    if let h = w.handle {
                        e.resumes.append((h, .failure(ImageCacheError.wrap(error, format: w.format.format.name, code: .sourceUnavailable))))
                    } else if let sourceWanted = w.sourceWanted {
                        e.sourceFailures.append((sourceWanted, error))
                    } else {
                        e.failedPrefetches.append((job.url, error))
                    }
                }
            }
        }
        return e
    }

    /// Queues `run` for a CPU thread at `priority`; `cancel` is called instead if the cache
    /// closes first. Returns false (calling neither) when the cache is closed.
    func enqueueCPU(at priority: RequestPriority, run: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) -> Bool {
        state.withLockedValue { s -> Bool in
            if s.closed { return false }
            s.cpuQueue.push(.work(run: run, cancel: cancel), at: priority)
            return true
        }
    }

    /// The most urgent CPU work, for a CPU thread; nil when there is none.
    func nextCPUWork() -> (CPUWork?, Effects) {
        var e = Effects()
        let work: CPUWork? = state.withLockedValue { s in
            var entry: CPUEntry?
            while let next = s.cpuQueue.popFirst() {
                if case .job(let q) = next, !isCurrent(q, in: .fetched, s.jobs) { continue }
                entry = next
                break
            }
            switch entry {
            case nil:
                return nil
            case .work(let run, _):
                return .work(run)
            case .job(let q):
                guard var job = s.jobs[q.job], let source = job.source else { return nil }
                job.phase = .processing
                job.source = nil
                s.jobs[q.job] = job
                s.awaitingDecode -= 1
                s.decoding += 1
                schedule(&s, &e)
                return .job(id: q.job, source: source)
            }
        }
        return (work, e)
    }

    /// Takes every waiter of a job being processed, to be served from its source; when none is
    /// left, ends the job.
    func takeWaiters(of jobID: UInt64) -> ([Waiter], Effects) {
        var e = Effects()
        let taken: [Waiter] = state.withLockedValue { s in
            guard var job = s.jobs[jobID] else { return [] }
            let taken = Array(job.waiters.values)
            job.waiters.removeAll()
            for w in taken { unindex(w, &s) }
            if taken.isEmpty {
                s.jobs[jobID] = nil
                forgetURL(of: job, jobID, &s)
                s.decoding -= 1
                schedule(&s, &e)
            } else {
                s.jobs[jobID] = job
            }
            return taken
        }
        return (taken, e)
    }

    // MARK: Configuration, statistics, closing

    /// The lane widths.
    var lanes: RequestLanes {
        state.withLockedValue { $0.lanes }
    }

    /// Changes the fetch lanes' widths (the CPU threads are fixed when the cache opens).
    func setLanes(_ lanes: RequestLanes) -> Effects {
        var e = Effects()
        state.withLockedValue { s in
            s.lanes = lanes
            schedule(&s, &e)
        }
        return e
    }

    /// Counts of the lanes now.
    var statistics: RequestQueueStatistics {
        state.withLockedValue { s in
            RequestQueueStatistics(
                queuedFast: s.queuedFast, queuedSlow: s.queuedSlow, fetchingFast: s.fetchingFast, fetchingSlow: s.fetchingSlow,
                awaitingDecode: s.awaitingDecode, decoding: s.decoding, waiters: s.waiterJob.count,
                promotions: s.promotions, demotions: s.demotions)
        }
    }

    /// Fails every waiter with `.closed`, cancels every fetch, calls the `cancel` of queued CPU
    /// work, and refuses new requests.
    func cancelAll() {
        var resumes: [RequestHandle] = []
        var tasks: [Task<Void, Never>] = []
        var formats: [String] = []
        var cancels: [@Sendable () -> Void] = []
        var sourceWaiters: [SourceHandler] = []
        state.withLockedValue { s in
            s.closed = true
            for job in s.jobs.values {
                if let task = job.task { tasks.append(task) }
                for w in job.waiters.values {
                    if let h = w.handle {
                        resumes.append(h)
                        formats.append(w.format.format.name)
                    }
                    if let sourceWanted = w.sourceWanted { sourceWaiters.append(sourceWanted) }
                }
            }
            s.jobs.removeAll()
            s.byURL.removeAll()
            s.waiterJob.removeAll()
            s.byEntity.removeAll()
            s.fetchQueue.removeAll()
            for entry in s.cpuQueue.drain() {
                if case .work(_, let cancel) = entry { cancels.append(cancel) }
            }
            s.queuedFast = 0
            s.queuedSlow = 0
            s.awaitingDecode = 0
            // The running fetches' slots go with their jobs: when a fetch ends it finds no job
            // to free a slot of, and the statistics must not count it as running for ever.
            s.fetchingFast = 0
            s.fetchingSlow = 0
        }
        for task in tasks { task.cancel() }
        for cancel in cancels { cancel() }
        for (h, format) in zip(resumes, formats) {
            h.deliver(.failure(ImageCacheError(.closed, "the cache was closed", format: format)))
        }
        for sourceWanted in sourceWaiters { sourceWanted(.failure(ImageCacheError(.closed, "the cache was closed"))) }
    }

    // MARK: Inside the lock

    private func index(_ w: Waiter, job: UInt64, _ s: inout State) {
        s.waiterJob[w.id] = job
        s.byEntity[w.entity.entityID, default: []].insert(w.id)
    }

    private func unindex(_ w: Waiter, _ s: inout State) {
        s.waiterJob[w.id] = nil
        let key = w.entity.entityID
        s.byEntity[key]?.remove(w.id)
        if s.byEntity[key]?.isEmpty == true { s.byEntity[key] = nil }
    }

    private func removeWaiter(_ id: UInt64, _ s: inout State, _ e: inout Effects) {
        guard let jobID = s.waiterJob[id], var job = s.jobs[jobID], let w = job.waiters.removeValue(forKey: id) else { return }
        unindex(w, &s)
        let cancelled = ImageCacheError(.cancelled, "the request was cancelled", format: w.format.format.name)
        if let h = w.handle { e.resumes.append((h, .failure(cancelled))) }
        if let sourceWanted = w.sourceWanted { e.sourceFailures.append((sourceWanted, cancelled)) }
        s.jobs[jobID] = job
        if job.waiters.isEmpty {
            abandon(jobID, &s, &e)
        } else {
            reprioritize(jobID, &s)
        }
    }

    /// The last waiter of a job has gone.
    private func abandon(_ jobID: UInt64, _ s: inout State, _ e: inout Effects) {
        guard var job = s.jobs[jobID] else { return }
        forgetURL(of: job, jobID, &s)
        switch job.phase {
        case .queued:
            if job.priority.lane == .fast { s.queuedFast -= 1 } else { s.queuedSlow -= 1 }
            s.jobs[jobID] = nil
        case .fetching:
            job.abandoned = true
            if let task = job.task { e.cancelledTasks.append(task) }
            e.abandoned.append((job.url, job.entity))
            s.jobs[jobID] = job
        case .fetched:
            s.awaitingDecode -= 1
            s.jobs[jobID] = nil
        case .processing:
            job.abandoned = true
            s.jobs[jobID] = job
        }
    }

    /// Drops the job's URL from the index of jobs, counting the job as ended.
    private func forgetURL(of job: Job, _ jobID: UInt64, _ s: inout State) {
        guard s.byURL[job.url] == jobID else { return }
        s.byURL[job.url] = nil
        s.jobsEnded &+= 1
    }

    /// Puts a job in the fetch queue of its priority.
    private func enqueueFetch(_ jobID: UInt64, _ s: inout State) {
        guard var job = s.jobs[jobID] else { return }
        job.phase = .queued
        job.ticket += 1
        s.fetchQueue.push(QueueEntry(job: jobID, ticket: job.ticket), at: job.priority)
        if job.priority.lane == .fast { s.queuedFast += 1 } else { s.queuedSlow += 1 }
        s.jobs[jobID] = job
    }

    /// Sets a job's priority to the highest of its waiters' and moves it accordingly.
    private func reprioritize(_ jobID: UInt64, _ s: inout State) {
        guard var job = s.jobs[jobID], let top = job.waiters.values.map(\.priority).max(), top != job.priority else { return }
        let old = job.priority
        job.priority = top
        if old.lane != top.lane {
            if top.lane == .fast { s.promotions += 1 } else { s.demotions += 1 }
        }
        switch job.phase {
        case .queued:
            if old.lane == .fast { s.queuedFast -= 1 } else { s.queuedSlow -= 1 }
            s.jobs[jobID] = job
            enqueueFetch(jobID, &s)
            var queue = s.fetchQueue
            s.fetchQueue = PriorityQueues()
            queue.compact(live: s.queuedFast + s.queuedSlow) { isCurrent($0, in: .queued, s.jobs) }
            s.fetchQueue = queue
            return
        case .fetching:
            // A running prefetch that becomes urgent moves to the fast lane's count, so the slow
            // lane stays paused while it runs; a demoted fetch keeps its fast slot until it ends.
            if job.slot == .slow && top.lane == .fast {
                s.fetchingSlow -= 1
                s.fetchingFast += 1
                job.slot = .fast
            }
        case .fetched:
            job.ticket += 1
            s.cpuQueue.push(.job(QueueEntry(job: jobID, ticket: job.ticket)), at: top)
        case .processing:
            break
        }
        s.jobs[jobID] = job
    }

    /// Starts as many queued fetches as the lanes allow, most urgent first.
    private func schedule(_ s: inout State, _ e: inout Effects) {
        if s.closed { return }
        while s.fetchingFast < s.lanes.fastFetches, s.awaitingDecode < s.lanes.maximumFetchedAwaitingDecode,
            let q = popQueued(.fast, &s)
        {
            s.queuedFast -= 1
            s.fetchingFast += 1
            start(q.job, lane: .fast, &s, &e)
        }
        // The slow lane waits while the fast lane has anything queued or running.
        while s.fetchingSlow < s.lanes.slowFetches, s.queuedFast == 0, s.fetchingFast == 0, s.awaitingDecode < 2,
            let q = popQueued(.slow, &s)
        {
            s.queuedSlow -= 1
            s.fetchingSlow += 1
            start(q.job, lane: .slow, &s, &e)
        }
    }

    /// The first current entry of `lane`'s fetch queue; stale ones are dropped.
    private func popQueued(_ lane: RequestLane, _ s: inout State) -> QueueEntry? {
        while let q = s.fetchQueue.popFirst(in: lane) {
            if isCurrent(q, in: .queued, s.jobs) { return q }
        }
        return nil
    }

    /// Whether `q` is the current entry of a job still in `phase`.
    private func isCurrent(_ q: QueueEntry, in phase: Phase, _ jobs: [UInt64: Job]) -> Bool {
        guard let job = jobs[q.job] else { return false }
        return job.ticket == q.ticket && job.phase == phase
    }

    private func start(_ jobID: UInt64, lane: RequestLane, _ s: inout State, _ e: inout Effects) {
        guard var job = s.jobs[jobID] else { return }
        job.phase = .fetching
        job.slot = lane
        s.jobs[jobID] = job
        e.starts.append(FetchStart(job: jobID, url: job.url, entity: job.entity, priority: job.priority))
    }
}
