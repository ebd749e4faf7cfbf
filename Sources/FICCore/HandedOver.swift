/// A value handed from one thread to another that uses it after the hand-over only (a decoder's
/// sink, a writer's consumer): the thread that made it does not touch it again until it has joined
/// the other thread, which orders the two (Thread Sanitizer sees the join).
///
/// `@unchecked Sendable` is the point of the type: the compiler cannot see that ownership moves
/// with the thread, so each use says in a comment why the thread that made the value stays away.
package struct HandedOver<Value>: @unchecked Sendable {
    /// The value.
    package let value: Value

    /// Hands `value` over.
    package init(value: Value) {
        self.value = value
    }
}
