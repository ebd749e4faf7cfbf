import Testing

/// Waits (polling every 2 ms) until `condition` holds; after `timeout` records an issue and throws,
/// so that the test stops there instead of going on with what never happened (indexing an empty
/// list of started fetches, say). For tests that check an order of events, not their speed: the
/// timeout only catches a hang. It is ten minutes because Swift Testing runs every test at once
/// on a 2-core machine, and under Address Sanitizer the tests that block (external tools, long
/// decodes) starved the async ones of the cooperative threads for over a minute.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(600), _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline {
            Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
            throw WaitTimedOut(what: what)
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// What ``waitUntil(_:timeout:_:sourceLocation:)`` throws when its condition never held.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    /// Says what was waited for.
    public var description: String { "timed out waiting until \(what)" }
}
