/// Why a harness (a local server, a relay, a tool) could not do its part: a message for the
/// test or benchmark that used it.
public struct HarnessError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
