#if Loader
/// Entries of the originals cache by name, least recently used first, with their sizes: a
/// doubly linked list in an array plus a dictionary, so that inserting, touching and removing an
/// entry and finding the oldest each take O(1).
struct RecencyIndex {
    private struct Node {
        var name: String
        var bytes: Int
        var older: Int
        var newer: Int
    }

    private var nodes: [Node] = []
    private var free: [Int] = []
    private var positions: [String: Int] = [:]
    private var oldestIndex = -1
    private var newestIndex = -1

    /// Bytes of all entries.
    private(set) var totalBytes = 0

    /// The number of entries.
    var count: Int { positions.count }

    /// The size of `name`, if present.
    func bytes(of name: String) -> Int? {
        positions[name].map { nodes[$0].bytes }
    }

    /// The least recently used entry.
    var oldest: (name: String, bytes: Int)? {
        oldestIndex < 0 ? nil : (nodes[oldestIndex].name, nodes[oldestIndex].bytes)
    }

    /// The entry after `name` in recency order (towards the newest).
    func newer(than name: String) -> (name: String, bytes: Int)? {
        guard let i = positions[name], nodes[i].newer >= 0 else { return nil }
        let n = nodes[nodes[i].newer]
        return (n.name, n.bytes)
    }

    /// Every entry, oldest first.
    var entries: [(name: String, bytes: Int)] {
        var out: [(String, Int)] = []
        out.reserveCapacity(count)
        var i = oldestIndex
        while i >= 0 {
            out.append((nodes[i].name, nodes[i].bytes))
            i = nodes[i].newer
        }
        return out
    }

    /// Adds `name` as the newest entry, or updates its size and makes it the newest.
    mutating func store(_ name: String, bytes: Int) {
        if let i = positions[name] {
            totalBytes += bytes - nodes[i].bytes
            nodes[i].bytes = bytes
            moveToNewest(i)
            return
        }
        let node = Node(name: name, bytes: bytes, older: newestIndex, newer: -1)
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
        positions[name] = i
        totalBytes += bytes
    }

    /// Makes `name` the newest entry, if present.
    mutating func touch(_ name: String) {
        if let i = positions[name] { moveToNewest(i) }
    }

    /// Removes `name`; returns its size.
    @discardableResult
    mutating func remove(_ name: String) -> Int? {
        guard let i = positions.removeValue(forKey: name) else { return nil }
        unlink(i)
        totalBytes -= nodes[i].bytes
        nodes[i].name = ""
        free.append(i)
        return nodes[i].bytes
    }

    /// Removes every entry.
    mutating func removeAll() {
        self = RecencyIndex()
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
#endif
