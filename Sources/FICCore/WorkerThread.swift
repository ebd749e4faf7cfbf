import CFICCore
import Glibc
import SystemPackage

/// A thread of its own, outside Swift's cooperative pool, running one closure: for work that
/// blocks (file I/O, a pipeline stage waiting for the next) or keeps a core busy for long.
///
/// A ``WorkerThread`` is joinable: ``join()`` may be called any number of times, from any thread,
/// and the first call waits for the closure to return. ``detach(name:_:)`` starts a thread that
/// nobody waits for (a pool's), whose resources go back to the system as soon as it returns.
/// Threads get the system's default attributes (stack size, scheduling policy and priority).
package final class WorkerThread: Sendable {
    private let thread: pthread_t
    /// Whether the thread has been joined; the lock also makes a second caller wait for the first.
    private let joined = LockedBox(false)

    /// Starts `body` on a new thread, named `name` for debuggers, `top` and tests.
    ///
    /// - Throws: ``ImageCacheError`` (`.io`) when the system cannot start another thread.
    package init(name: String? = nil, _ body: @escaping @Sendable () -> Void) throws {
        thread = try Self.start(name: name, detached: false, body)
    }

    /// Starts `body` on a new thread that is never joined.
    ///
    /// - Throws: ``ImageCacheError`` (`.io`) when the system cannot start another thread.
    package static func detach(name: String? = nil, _ body: @escaping @Sendable () -> Void) throws {
        _ = try start(name: name, detached: true, body)
    }

    /// Waits for the closure to return.
    package func join() {
        joined.withLockedValue { joined in
            guard !joined else { return }
            pthread_join(thread, nil)
            joined = true
        }
    }

    /// What the new thread runs, passed through `pthread_create`'s one pointer.
    private final class Start {
        let name: String?
        let run: @Sendable () -> Void
        init(name: String?, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    private static func start(name: String?, detached: Bool, _ body: @escaping @Sendable () -> Void) throws -> pthread_t {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        let box = Unmanaged.passRetained(Start(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, &attributes,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                if let name = start.name { setCurrentThreadName(name) }
                start.run()
                return nil
            }, box)
        if rc != 0 {
            Unmanaged<Start>.fromOpaque(box).release()
            throw ImageCacheError(.io, "could not start a thread", errno: Errno(rawValue: rc))
        }
        return thread
    }
}

/// Names the calling thread. Linux keeps 15 bytes of a name; a longer one would be refused
/// (`ERANGE`) and leave the thread unnamed, so it is cut to fit.
private func setCurrentThreadName(_ name: String) {
    var fitting = ""
    for scalar in name.unicodeScalars {
        guard fitting.utf8.count + String(scalar).utf8.count <= 15 else { break }
        fitting.unicodeScalars.append(scalar)
    }
    _ = fic_set_current_thread_name(fitting)
}
