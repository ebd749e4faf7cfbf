import FICCore
import Logging

/// Keeps what a logger was told, with levels, for tests that check what is logged and how loudly.
public final class CapturedLogs: Sendable {
    private let entries = LockedBox<[(level: Logger.Level, message: String)]>([])

    /// An empty record.
    public init() {}

    /// A logger (at `trace`) that records here.
    public var logger: Logger {
        var logger = Logger(label: "test", factory: { _ in Handler(owner: self) })
        logger.logLevel = .trace
        return logger
    }

    /// The messages logged at `level` or above.
    public func messages(atLeast level: Logger.Level) -> [String] {
        entries.withLockedValue { $0.filter { $0.level >= level }.map(\.message) }
    }

    private struct Handler: LogHandler {
        let owner: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            owner.entries.withLockedValue { $0.append((event.level, event.message.description)) }
        }
    }
}
