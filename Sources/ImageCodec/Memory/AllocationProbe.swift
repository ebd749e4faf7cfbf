/// Records the buffers ``LargeBufferPool`` hands out to the current task, and the most a codec
/// library held mapped at once, for tests that check what a decode allocates (for example that a
/// huge PNG never gets a buffer of its full size).
package final class AllocationProbe: Sendable {
    /// The probe of the current task, if any.
    @TaskLocal package static var current: AllocationProbe?

    private let state = LockedBox((largest: 0, total: 0, count: 0, sizes: [Int](), libraryPeak: 0))

    /// Creates an empty probe.
    package init() {}

    /// The largest single buffer handed out.
    package var largestBytes: Int { state.withLockedValue { $0.largest } }
    /// All bytes handed out.
    package var totalBytes: Int { state.withLockedValue { $0.total } }
    /// How many buffers were handed out.
    package var count: Int { state.withLockedValue { $0.count } }
    /// The size of each buffer handed out, in order.
    package var sizes: [Int] { state.withLockedValue { $0.sizes } }

    /// The most bytes a codec library (libjpeg) held mapped at once in one decode.
    package var libraryPeakBytes: Int { state.withLockedValue { $0.libraryPeak } }

    func recordLibraryPeak(_ bytes: Int) {
        state.withLockedValue { $0.libraryPeak = max($0.libraryPeak, bytes) }
    }

    func record(_ bytes: Int) {
        state.withLockedValue { s in
            s.largest = max(s.largest, bytes)
            s.total += bytes
            s.count += 1
            s.sizes.append(bytes)
        }
    }
}
