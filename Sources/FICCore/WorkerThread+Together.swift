extension WorkerThread {
    /// Runs `body(0)` on the calling thread and `body(1)` … `body(count - 1)` on threads of their
    /// own named `name`, and returns when every one has returned: a parallel loop whose workers
    /// share their work themselves (a counter under a lock, say). When the system refuses a
    /// thread, the ones that did start carry the work.
    package static func runTogether(_ count: Int, name: String, _ body: @escaping @Sendable (_ index: Int) -> Void) {
        var others: [WorkerThread] = []
        for index in 1..<max(1, count) {
            guard let thread = try? WorkerThread(name: name, { body(index) }) else { break }
            others.append(thread)
        }
        body(0)
        for thread in others { thread.join() }
    }
}
