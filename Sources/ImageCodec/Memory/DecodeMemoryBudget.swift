/// One budget of bytes shared by decodes running at the same time: each reserves what
/// ``ImageDecoder/estimatedMemory(ofFileAt:options:)`` says it needs before it starts, and waits
/// (without blocking a thread) while the budget is spent.
///
/// Reservations are granted in the order they were asked for, so a large one is not starved by
/// small ones. A reservation larger than the whole budget is granted when nothing else is reserved:
/// that decode then runs alone, rather than never. Thread-safe.
public final class DecodeMemoryBudget: Sendable {
    /// The bytes the budget holds.
    public let capacity: Int

    private struct State {
        var reserved = 0
        var peak = 0
    }

    /// The budget has one line of waiters: every reservation queues behind the earlier ones.
    private enum Line {
        case all
    }

    private let queue: WaiterQueue<Line, State>

    /// The small-memory setting, 96 MiB: large photos are decoded one at a time, and an ingest of
    /// thousands of large JPEGs, HEICs or AVIFs stays under 150 MB of peak resident memory
    /// (measured in `fic-bench ingest` and `fic-bench formats`). For
    /// small machines and containers, or a process that does much else.
    public static let smallMemoryCapacity = 96 << 20

    /// The default capacity on this machine: a sixteenth of the memory the process may use (the
    /// physical memory, or its container's limit when lower), between ``smallMemoryCapacity`` and
    /// 2 GiB. On a machine with a few GiB or more, that lets as many large decodes run at once as
    /// there are cores: HEIC and AVIF decoders work on one core per image, so a budget for one
    /// decode leaves the others idle.
    public static var defaultCapacity: Int { defaultCapacity(memoryBytes: MachineResources.memoryBytes) }

    /// The default capacity for a process that may use `memoryBytes`.
    public static func defaultCapacity(memoryBytes: Int) -> Int {
        min(max(memoryBytes / 16, smallMemoryCapacity), 2 << 30)
    }

    /// A budget of ``defaultCapacity`` bytes.
    public convenience init() {
        self.init(capacity: Self.defaultCapacity)
    }

    /// A budget of `capacity` bytes (at least 1).
    public init(capacity: Int) {
        let capacity = max(capacity, 1)
        self.capacity = capacity
        queue = WaiterQueue(State()) { s, _, bytes in
            // Anything fits an empty budget: an oversized reservation runs alone rather than never.
            guard s.reserved == 0 || bytes <= capacity - s.reserved else { return false }
            s.reserved += bytes
            s.peak = max(s.peak, s.reserved)
            return true
        }
    }

    /// Bytes reserved right now.
    public var reservedBytes: Int { queue.read { $0.reserved } }
    /// The most bytes that were reserved at once.
    public var peakReservedBytes: Int { queue.read { $0.peak } }
    /// Reservations waiting for bytes to be released.
    public var waitingCount: Int { queue.waitingCount }

    /// Reserves `bytes` (negative counts as 0), waiting until they fit.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits (nothing is reserved then).
    public func reserve(_ bytes: Int) async throws -> Reservation {
        let bytes = max(bytes, 0)
        try await queue.wait(in: .all, for: bytes)
        return Reservation(budget: self, bytes: bytes)
    }

    /// Reserves `bytes` now if they fit and nobody is waiting; nil otherwise.
    public func tryReserve(_ bytes: Int) -> Reservation? {
        let bytes = max(bytes, 0)
        return queue.tryTake(in: .all, bytes) ? Reservation(budget: self, bytes: bytes) : nil
    }

    /// Gives `bytes` back and grants the waiting reservations, in order, that fit now.
    fileprivate func release(_ bytes: Int) {
        queue.update(granting: .all) { $0.reserved -= bytes }
    }

    /// Bytes reserved from a budget, given back by ``release()`` or when the reservation goes away.
    public final class Reservation: Sendable {
        /// The bytes reserved.
        public let bytes: Int
        private let budget: DecodeMemoryBudget
        private let released = LockedBox(false)

        fileprivate init(budget: DecodeMemoryBudget, bytes: Int) {
            self.budget = budget
            self.bytes = bytes
        }

        deinit {
            release()
        }

        /// Gives the bytes back (once; later calls do nothing).
        public func release() {
            let first = released.withLockedValue { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { budget.release(bytes) }
        }
    }
}
