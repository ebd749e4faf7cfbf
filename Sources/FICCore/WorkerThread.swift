import Glibc

/// A joinable thread running one closure. ``join()`` may be called any number of times, from any
/// thread; the first call waits for the closure to return.
package final class WorkerThread: Sendable {
    private let thread: pthread_t
    /// Whether the thread has been joined; the lock also makes a second caller wait for the first.
    private let joined = LockedBox(false)

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread.
    package init(_ body: @escaping @Sendable () -> Void) throws {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            throw ImageCacheError(.io, "could not start a worker thread", errno: .init(rawValue: rc))
        }
        self.thread = thread
    }

    /// Waits for the closure to return.
    package func join() {
        joined.withLockedValue { joined in
            guard !joined else { return }
            pthread_join(thread, nil)
            joined = true
        }
    }
}

/// A value handed from one thread to another that uses it after the hand-over only (a decoder's
/// sink, a writer's consumer): the thread that made it does not touch it again until it has joined
/// the other thread, which orders the two (Thread Sanitizer sees the join).
package struct HandedOver<Value>: @unchecked Sendable {
    /// The value.
    package let value: Value

    /// Hands `value` over.
    package init(value: Value) {
        self.value = value
    }
}
