import FICCore

/// One first-come-first-served queue per ``RequestPriority``, highest taken first.
///
/// Entries are never searched for: when a queued job's priority changes, a new entry is pushed at
/// its new level and the old one goes stale; whoever pops skips stale entries (`isValid`). So a
/// priority change costs O(1), and stale entries are dropped in bulk when they outnumber live ones.
struct PriorityQueues<Entry> {
    private var levels = Array(repeating: FIFO<Entry>(), count: RequestPriority.allCases.count)

    /// Entries held, live and stale.
    var entryCount: Int { levels.reduce(0) { $0 + $1.count } }

    /// Queues `entry` at `priority`, behind the entries already there.
    mutating func push(_ entry: Entry, at priority: RequestPriority) {
        levels[priority.rawValue].append(entry)
    }

    /// Removes and returns the first entry of the highest priority in `lane` (any lane when
    /// nil); the caller skips it if it is stale.
    mutating func popFirst(in lane: RequestLane? = nil) -> Entry? {
        for priority in RequestPriority.allCases.reversed() where lane == nil || priority.lane == lane {
            if let entry = levels[priority.rawValue].popFirst() { return entry }
        }
        return nil
    }

    /// Drops stale entries when they are more than `live` plus a margin.
    mutating func compact(live: Int, isValid: (Entry) -> Bool) {
        guard entryCount > 2 * live + 64 else { return }
        for i in levels.indices { levels[i].filter(isValid) }
    }

    /// Removes every entry.
    mutating func removeAll() {
        for i in levels.indices { levels[i].removeAll() }
    }

    /// Removes and returns every entry, most urgent first.
    mutating func drain() -> [Entry] {
        var all: [Entry] = []
        while let entry = popFirst() { all.append(entry) }
        return all
    }
}

extension PriorityQueues: Sendable where Entry: Sendable {}
