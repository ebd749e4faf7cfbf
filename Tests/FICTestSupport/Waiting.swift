import Testing

/// Waits (polling every 2 ms) until `condition` holds; records an issue after `timeout`. For tests
/// that check an order of events, not their speed: the timeout is generous for loaded machines.
public func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline {
            Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}
