/// A first-in, first-out queue with O(1) amortised append and removal from the front.
package struct FIFO<Element> {
    private var items: [Element?] = []
    private var head = 0

    /// An empty queue.
    package init() {}

    /// The number of queued elements.
    package var count: Int { items.count - head }
    /// Whether nothing is queued.
    package var isEmpty: Bool { head == items.count }

    /// Adds `element` at the back.
    package mutating func append(_ element: Element) {
        items.append(element)
    }

    /// Removes and returns the front element, or nil.
    package mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        items[head] = nil
        head += 1
        if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Keeps only the elements for which `keep` is true, in order.
    package mutating func filter(_ keep: (Element) -> Bool) {
        items = items[head...].compactMap { $0 }.filter(keep)
        head = 0
    }

    /// Removes everything.
    package mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}
