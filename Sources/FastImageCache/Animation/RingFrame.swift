import FICCore

/// The pixels of one frame decoded into a ring (``AnimationRings``): one image of the format,
/// in memory of its own (mapped pages, returned to the system when the last holder lets go), not
/// in the table. Counted while alive, so that the rings' memory can be seen.
final class RingFrame: Sendable {
    /// The pixels (`bytesPerRow × height` of the format).
    let pixels: PageBuffer
    /// The number of ring frames alive, shared by the rings of one cache.
    private let alive: LockedBox<Int>

    /// Maps `byteCount` bytes of zeroed memory, counted in `alive`.
    ///
    /// - Throws: ``ImageCacheError/Code/overMemoryBudget`` when the system has no memory to give.
    init(byteCount: Int, alive: LockedBox<Int>) throws {
        pixels = try PageBuffer(count: byteCount)
        self.alive = alive
        alive.withLockedValue { $0 += 1 }
    }

    deinit {
        alive.withLockedValue { $0 -= 1 }
    }
}
