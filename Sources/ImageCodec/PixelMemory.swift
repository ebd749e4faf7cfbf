import Glibc

/// Allocates bitmap memory, recycling a few recently freed large buffers.
///
/// Fresh multi-megabyte allocations come straight from `mmap`, and touching their pages for the
/// first time costs about half as much again as decoding a JPEG into them. Keeping up to
/// ``maximumCount`` freed buffers (at most ``maximumTotalBytes``) lets a stream of similar-sized
/// decodes reuse warm memory. Buffers under ``minimumPooledBytes`` are left to `malloc`.
enum PixelMemory {
    static let minimumPooledBytes = 4 << 20
    static let maximumCount = 2
    static let maximumTotalBytes = 64 << 20
    static let alignment = 64

    private struct Buffer {
        let pointer: UnsafeMutableRawPointer
        let byteCount: Int
    }

    /// The free buffers, guarded by a pthread mutex (which, unlike `Synchronization.Mutex`, Thread
    /// Sanitizer understands). Allocated once and never moved.
    private final class Pool: @unchecked Sendable {
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        private var buffers: [Buffer] = []

        init() {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }

        func withLock<R>(_ body: (inout [Buffer]) -> R) -> R {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return body(&buffers)
        }
    }

    private static let pool = Pool()

    /// Memory for `byteCount` bytes (64-byte aligned), zero-filled when `zeroed`.
    static func allocate(byteCount: Int, zeroed: Bool) -> UnsafeMutableRawPointer {
        if byteCount >= minimumPooledBytes {
            let reused = pool.withLock { buffers -> UnsafeMutableRawPointer? in
                // Reuse a buffer that fits without wasting more than a quarter of it.
                guard let index = buffers.firstIndex(where: { $0.byteCount >= byteCount && $0.byteCount - byteCount <= $0.byteCount / 4 }) else {
                    return nil
                }
                return buffers.remove(at: index).pointer
            }
            if let reused {
                if zeroed { reused.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount) }
                return reused
            }
        }
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: alignment)
        if zeroed { pointer.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount) }
        return pointer
    }

    /// Returns memory obtained from ``allocate(byteCount:zeroed:)``; `byteCount` must not exceed
    /// the size it was allocated with.
    static func release(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        if byteCount >= minimumPooledBytes {
            let evicted = pool.withLock { buffers -> [UnsafeMutableRawPointer]? in
                var evicted: [UnsafeMutableRawPointer] = []
                buffers.append(Buffer(pointer: pointer, byteCount: byteCount))
                while buffers.count > maximumCount || buffers.reduce(0, { $0 + $1.byteCount }) > maximumTotalBytes {
                    evicted.append(buffers.removeFirst().pointer)
                }
                return evicted
            }
            evicted?.forEach { $0.deallocate() }
            return
        }
        pointer.deallocate()
    }
}
