import FICCore

/// One caller's request: the id of its waiter (for cancellation) and the hand-over of its image.
final class RequestHandle: Sendable {
    /// The image, or why there is none.
    let handoff = Handoff<CachedImage>()
    private let waiter = LockedBox<UInt64?>(nil)

    /// The waiter's id, once registered.
    var id: UInt64? {
        get { waiter.withLockedValue { $0 } }
        set { waiter.withLockedValue { $0 = newValue } }
    }

    /// Hands over the outcome and wakes the caller.
    func deliver(_ outcome: Result<CachedImage, any Error>) {
        handoff.deliver(outcome)
    }
}
