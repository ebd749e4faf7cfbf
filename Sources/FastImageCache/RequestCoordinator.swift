import Foundation

/// In-flight source requests, keyed by source URL, so that concurrent requests for one source
/// make one fetch and one decode however many entities and formats wait on it.
final class RequestCoordinator: Sendable {
    struct Waiter {
        let entity: any ImageEntity
        let format: FormatTable
        let continuation: CheckedContinuation<CachedImage, any Error>
    }

    /// One fetch-decode-draw of a source URL. Guarded by the coordinator's lock.
    final class Job: @unchecked Sendable {
        let url: URL
        let entity: any ImageEntity
        var waiters: [UInt64: Waiter] = [:]
        var task: Task<Void, Never>?
        var isCancelled = false

        init(url: URL, entity: any ImageEntity) {
            self.url = url
            self.entity = entity
        }
    }

    private let lock = Lock()
    nonisolated(unsafe) private var jobs: [URL: Job] = [:]
    nonisolated(unsafe) private var nextWaiterID: UInt64 = 0
    nonisolated(unsafe) private var closed = false

    /// Adds a waiter for (`entity`, `format`) to the job of `url`, starting the job if there is
    /// none. `start` is called (outside the lock) with a new job to run.
    func register(url: URL, entity: any ImageEntity, format: FormatTable, continuation: CheckedContinuation<CachedImage, any Error>,
                  alreadyStored: () -> CachedImage?, start: (Job) -> Task<Void, Never>) -> UInt64? {
        var newJob: Job?
        var immediate: Result<CachedImage, any Error>?
        let id: UInt64? = lock.withLock {
            if closed {
                immediate = .failure(ImageCacheError(.closed, "the cache is closed", format: format.format.name))
                return nil
            }
            nextWaiterID += 1
            let id = nextWaiterID
            if let job = jobs[url] {
                job.waiters[id] = Waiter(entity: entity, format: format, continuation: continuation)
                return id
            }
            // No job: the image may have been committed by a job that just finished.
            if let image = alreadyStored() {
                immediate = .success(image)
                return nil
            }
            let job = Job(url: url, entity: entity)
            job.waiters[id] = Waiter(entity: entity, format: format, continuation: continuation)
            jobs[url] = job
            newJob = job
            return id
        }
        if let immediate { continuation.resume(with: immediate) }
        if let newJob {
            let task = start(newJob)
            lock.withLock { newJob.task = task }
        }
        return id
    }

    /// Removes and returns every waiter of `job`; when there are none, ends the job.
    func takeWaiters(of job: Job) -> [Waiter] {
        lock.withLock {
            let taken = Array(job.waiters.values)
            job.waiters.removeAll()
            if taken.isEmpty, jobs[job.url] === job { jobs[job.url] = nil }
            return taken
        }
    }

    /// Whether every waiter of the job has gone.
    func isAbandoned(_ job: Job) -> Bool {
        lock.withLock { job.isCancelled }
    }

    /// Cancels one waiter; when it was the job's last, cancels the job and tells the provider.
    func cancel(waiter id: UInt64, url: URL, provider: (any ImageSourceProvider)?) {
        var resumed: Waiter?
        var abandoned: Job?
        lock.withLock {
            guard let job = jobs[url], let w = job.waiters.removeValue(forKey: id) else { return }
            resumed = w
            if job.waiters.isEmpty {
                job.isCancelled = true
                jobs[url] = nil
                abandoned = job
            }
        }
        resumed?.continuation.resume(throwing: ImageCacheError(.cancelled, "the request was cancelled", format: resumed?.format.format.name))
        if let abandoned {
            abandoned.task?.cancel()
            provider?.didCancelRequest(at: abandoned.url, for: abandoned.entity)
        }
    }

    /// The ids and URLs of waiters for `entityID` in `format` (nil: any format).
    func waiters(entityID: String, format: String?) -> [(UInt64, URL)] {
        lock.withLock {
            jobs.values.flatMap { job in
                job.waiters.filter { $0.value.entity.entityID == entityID && (format == nil || $0.value.format.format.name == format) }
                    .map { ($0.key, job.url) }
            }
        }
    }

    /// Fails every waiter and refuses new ones.
    func cancelAll() {
        let all: [Job] = lock.withLock {
            closed = true
            let all = Array(jobs.values)
            jobs.removeAll()
            for job in all { job.isCancelled = true }
            return all
        }
        for job in all {
            job.task?.cancel()
            let waiters = lock.withLock { () -> [Waiter] in
                let w = Array(job.waiters.values)
                job.waiters.removeAll()
                return w
            }
            for w in waiters {
                w.continuation.resume(throwing: ImageCacheError(.closed, "the cache was closed", format: w.format.format.name))
            }
        }
    }
}
