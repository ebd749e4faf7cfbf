#if Tool
import FICCommandLine
import FICCore
import Foundation
import TiledImage

/// Reads a pyramid's tiles on threads of its own into a small resident set, so that the frame
/// path never waits on the disk: each frame hands over its ``TilePlan`` and takes the tiles that
/// are resident now; the rest arrive on later frames.
///
/// Tiles are read with `pread` (``TilePyramid/readTile(level:column:row:into:)``) into memory of
/// the loader's own, a fixed number of 256 KiB buffers: resident memory stays bounded however
/// far the view pans (a mapping of the level files would keep every page it touched).
final class TileLoader: Sendable {
    private struct State {
        var wanted: [TileKey] = []
        var keep: Set<TileKey> = []
        var resident: [TileKey: PageBuffer] = [:]
        var free: [PageBuffer] = []
        var allocated = 0
        var loading: Set<TileKey> = []
        var failed: [TileKey: String] = [:]
        /// Tiles of a pyramid being built whose rows were not written yet when asked for.
        var notWritten: Set<TileKey> = []
        var reader: any TileReading
        /// Counts ``written(switchingTo:)`` calls: a refusal from before the last one is retried.
        var generation = 0
        var stopped = false
        /// Counts the changes a reader thread with nothing to do waits for (work asked for, rows
        /// written, a stop), so that none made between its last look and its wait is missed.
        var wakes = 0
        var reads = 0
        var readNanoseconds: UInt64 = 0

        /// Whether `key` is to be read: neither resident nor being read, nor failed, nor refused
        /// as not written yet.
        func needsReading(_ key: TileKey) -> Bool {
            resident[key] == nil && !loading.contains(key) && failed[key] == nil && !notWritten.contains(key)
        }
    }

    /// The most tiles resident at once.
    let capacity: Int
    private let state: ConditionBox<State>
    private let threads: LockedBox<[WorkerThread]>
    /// A pause after each read, in microseconds (tests use it to see coarse tiles stand in).
    private let readDelay: UInt32

    /// Starts `threads` reader threads for `reader` (a pyramid, or a builder at work), keeping at
    /// most `capacity` tiles, each read followed by a pause of `readDelayMilliseconds` (0 but in tests).
    /// A thread that cannot be started is done without: the others read its share, and with none
    /// the view shows placeholders.
    init(reader: any TileReading, capacity: Int, threads: Int = 2, readDelayMilliseconds: Int = 0) {
        state = ConditionBox(State(reader: reader))
        self.capacity = max(8, capacity)
        self.threads = LockedBox([])
        readDelay = UInt32(min(max(0, readDelayMilliseconds), 10_000) * 1000)
        let started = (0..<threads).compactMap { i in try? WorkerThread(name: "fic view: tiles \(i)") { [self] in readLoop() } }
        self.threads.withLockedValue { $0 = started }
    }

    /// Hands over what the frame needs and returns the tiles of `plan.keep` resident now. A
    /// returned buffer is not reused while its tile stays in the plan's `keep` set, which holds
    /// until the next call.
    func update(_ plan: TilePlan) -> [TileKey: PageBuffer] {
        let (snapshot, work) = state.withLockedValue { s -> ([TileKey: PageBuffer], Bool) in
            s.wanted = plan.wanted
            s.keep = plan.keep
            var snapshot: [TileKey: PageBuffer] = [:]
            snapshot.reserveCapacity(plan.keep.count)
            for key in plan.keep { if let b = s.resident[key] { snapshot[key] = b } }
            let work = s.wanted.contains(where: s.needsReading)
            if work { s.wakes += 1 }
            return (snapshot, work)
        }
        // Most frames ask for nothing new: the reader threads are woken only when there is work.
        if work { state.broadcast() }
        return snapshot
    }

    /// More rows of tiles have been written, or the pyramid is finished (`reader`, replacing the
    /// builder: the tiles already resident stay, they are the same bytes): tiles refused as not
    /// written yet are asked for again.
    func written(switchingTo reader: (any TileReading)? = nil) {
        let work = state.withLockedValue { s -> Bool in
            if let reader { s.reader = reader }
            s.generation += 1
            let retry = !s.notWritten.isEmpty
            if retry { s.wakes += 1 }
            s.notWritten = []
            return retry
        }
        if work { state.broadcast() }
    }

    /// Whether nothing is being read and every wanted tile is resident, failed, or refused as not
    /// written yet (a build that does not progress).
    var isSettled: Bool {
        state.withLockedValue { s in
            s.loading.isEmpty && s.wanted.allSatisfy { s.resident[$0] != nil || s.failed[$0] != nil || s.notWritten.contains($0) }
        }
    }

    /// Whether every wanted tile is resident (or failed) and nothing is being read.
    var isIdle: Bool {
        state.withLockedValue { s in s.loading.isEmpty && s.wanted.allSatisfy { s.resident[$0] != nil || s.failed[$0] != nil } }
    }

    /// Reads done, their average time in ms, tiles resident and tiles that failed (with a reason).
    var figures: (reads: Int, averageMs: Double, resident: Int, failed: Int, firstFailure: String?) {
        state.withLockedValue { s in
            (
                s.reads, s.reads == 0 ? 0 : Double(s.readNanoseconds) / Double(s.reads) / 1e6, s.resident.count, s.failed.count,
                s.failed.values.first
            )
        }
    }

    /// Stops the threads and waits for them.
    func stop() {
        state.update { s in
            s.stopped = true
            s.wakes += 1
        }
        for thread in threads.withLockedValue({ $0 }) { thread.join() }
    }

    private enum Job {
        case stop
        /// Nothing to do until ``State/wakes`` moves past this count.
        case idle(wakes: Int)
        case read(TileKey, PageBuffer?, any TileReading, Int)
    }

    private func readLoop() {
        guard let scratch = try? TileBuffer() else { return }
        while true {
            switch nextJob() {
            case .stop: return
            case .idle(let seen): state.withLockedValue(waitingUntil: { $0.wakes != seen }) { _ in }
            case .read(let key, let reused, let reader, let generation):
                read(key, from: reader, generation: generation, reusing: reused, scratch: scratch)
            }
        }
    }

    /// The most urgent tile that is neither resident nor being read, with a buffer for it: a
    /// free one, a new one while under capacity, or one of a tile the plan no longer keeps
    /// (nil when a new one must be allocated).
    private func nextJob() -> Job {
        state.withLockedValue { s -> Job in
            if s.stopped { return .stop }
            guard let key = s.wanted.first(where: s.needsReading) else { return .idle(wakes: s.wakes) }
            var buffer: PageBuffer?
            if let free = s.free.popLast() {
                buffer = free
            } else if s.allocated < capacity {
                s.allocated += 1
            } else if let victim = s.resident.first(where: { !s.keep.contains($0.key) }) {
                s.resident[victim.key] = nil
                buffer = victim.value
            } else {
                return .idle(wakes: s.wakes)  // everything resident is needed: the plan is larger than the capacity
            }
            s.loading.insert(key)
            return .read(key, buffer, s.reader, s.generation)
        }
    }

    private func read(_ key: TileKey, from reader: any TileReading, generation: Int, reusing reused: PageBuffer?, scratch: TileBuffer) {
        let start = Stopwatch.now()
        var buffer = reused
        var failure: String?
        var notWritten = false
        do {
            if buffer == nil { buffer = try PageBuffer(count: PyramidGeometry.tileBytes) }
            try reader.readTile(level: key.level, column: key.column, row: key.row, into: scratch)
            scratch.withUnsafeBytes { bytes in
                buffer!.base.copyMemory(from: bytes.baseAddress!, byteCount: min(bytes.count, PyramidGeometry.tileBytes))
            }
        } catch let error as ImageCacheError where error.code == .notWrittenYet {
            notWritten = true
        } catch {
            failure = "\(error)"
        }
        if notWritten {
            state.withLockedValue { s in
                s.loading.remove(key)
                // Asked again after the next rows are written (``written(switchingTo:)``).
                if s.generation == generation { s.notWritten.insert(key) }
                if let buffer { s.free.append(buffer) } else { s.allocated -= 1 }
            }
            return
        }
        if readDelay > 0 { usleep(readDelay) }
        let elapsed = Stopwatch.elapsed(since: start)
        state.withLockedValue { s in
            s.loading.remove(key)
            if let failure {
                s.failed[key] = failure
                if let buffer { s.free.append(buffer) } else { s.allocated -= 1 }
            } else if let buffer {
                s.reads += 1
                s.readNanoseconds += elapsed
                if s.keep.contains(key) { s.resident[key] = buffer } else { s.free.append(buffer) }
            }
        }
    }
}
#endif
