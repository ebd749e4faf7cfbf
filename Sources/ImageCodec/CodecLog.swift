import Logging

/// The decoders' logger: the library never prints.
enum CodecLog {
    /// The logger in use; `FastImageCache.ImageCodec` from the logging system until a host sets one.
    static let box = LockedBox(Logger(label: "FastImageCache.ImageCodec"))

    /// Logs each recoverable-damage warning of a decode at `warning` level.
    static func warnings(_ warnings: [String], format: ImageFileFormat, path: String?) {
        guard !warnings.isEmpty else { return }
        let logger = box.withLockedValue { $0 }
        for warning in warnings {
            var metadata: Logger.Metadata = ["format": "\(format.rawValue)"]
            if let path { metadata["path"] = "\(path)" }
            logger.warning("Decoded past recoverable damage: \(warning)", metadata: metadata)
        }
    }
}

extension ImageDecoder {
    /// Where the decoders log: recoverable damage they decoded past (at `warning` level, with the
    /// file's `path` and `format` as metadata). Defaults to a logger labelled
    /// `FastImageCache.ImageCodec` from the logging system; a host that reports problems itself
    /// can set a quieter one.
    public static var logger: Logger {
        get { CodecLog.box.withLockedValue { $0 } }
        set { CodecLog.box.withLockedValue { $0 = newValue } }
    }
}
