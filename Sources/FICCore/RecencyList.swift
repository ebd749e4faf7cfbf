/// Keys in order of use, least recently used first, each with a cost (bytes, or 1 to count
/// entries): a doubly linked list in an array plus a dictionary, so that storing, touching and
/// removing a key, and finding the oldest, each take O(1). The one least-recently-used order of
/// the package: the originals cache, the tile server's kept answers and its open pyramids use it.
/// A value type: guard it with the lock that guards what it orders.
package struct RecencyList<Key: Hashable> {
    fileprivate struct Node {
        var key: Key?
        var cost: Int
        var older: Int
        var newer: Int
    }

    private var nodes: [Node] = []
    private var free: [Int] = []
    private var positions: [Key: Int] = [:]
    private var oldestIndex = -1
    private var newestIndex = -1

    /// The sum of every key's cost.
    package private(set) var totalCost = 0

    /// An empty list.
    package init() {}

    /// The number of keys.
    package var count: Int { positions.count }

    /// The cost of `key`, if present.
    package func cost(of key: Key) -> Int? {
        positions[key].map { nodes[$0].cost }
    }

    /// The least recently used key and its cost.
    package var oldest: (key: Key, cost: Int)? {
        oldestIndex < 0 ? nil : (nodes[oldestIndex].key!, nodes[oldestIndex].cost)
    }

    /// The key after `key` in recency order (towards the newest).
    package func newer(than key: Key) -> (key: Key, cost: Int)? {
        guard let i = positions[key], nodes[i].newer >= 0 else { return nil }
        let n = nodes[nodes[i].newer]
        return (n.key!, n.cost)
    }

    /// Every key and its cost, oldest first.
    package var entries: [(key: Key, cost: Int)] {
        var out: [(key: Key, cost: Int)] = []
        out.reserveCapacity(count)
        var i = oldestIndex
        while i >= 0 {
            out.append((nodes[i].key!, nodes[i].cost))
            i = nodes[i].newer
        }
        return out
    }

    /// Adds `key` as the newest, or sets its cost and makes it the newest.
    package mutating func store(_ key: Key, cost: Int) {
        if let i = positions[key] {
            totalCost += cost - nodes[i].cost
            nodes[i].cost = cost
            moveToNewest(i)
            return
        }
        let node = Node(key: key, cost: cost, older: newestIndex, newer: -1)
        let i: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            i = reused
        } else {
            nodes.append(node)
            i = nodes.count - 1
        }
        if newestIndex >= 0 { nodes[newestIndex].newer = i }
        newestIndex = i
        if oldestIndex < 0 { oldestIndex = i }
        positions[key] = i
        totalCost += cost
    }

    /// Makes `key` the newest, if present.
    package mutating func touch(_ key: Key) {
        if let i = positions[key] { moveToNewest(i) }
    }

    /// Removes `key`; returns its cost.
    @discardableResult
    package mutating func remove(_ key: Key) -> Int? {
        guard let i = positions.removeValue(forKey: key) else { return nil }
        unlink(i)
        let cost = nodes[i].cost
        totalCost -= cost
        nodes[i].key = nil
        free.append(i)
        return cost
    }

    /// Removes every key.
    package mutating func removeAll() {
        self = RecencyList()
    }

    private mutating func moveToNewest(_ i: Int) {
        guard i != newestIndex else { return }
        unlink(i)
        nodes[i].older = newestIndex
        nodes[i].newer = -1
        if newestIndex >= 0 { nodes[newestIndex].newer = i }
        newestIndex = i
        if oldestIndex < 0 { oldestIndex = i }
    }

    private mutating func unlink(_ i: Int) {
        let (older, newer) = (nodes[i].older, nodes[i].newer)
        if older >= 0 { nodes[older].newer = newer } else { oldestIndex = newer }
        if newer >= 0 { nodes[newer].older = older } else { newestIndex = older }
        nodes[i].older = -1
        nodes[i].newer = -1
    }
}

extension RecencyList: Sendable where Key: Sendable {}
extension RecencyList.Node: Sendable where Key: Sendable {}
