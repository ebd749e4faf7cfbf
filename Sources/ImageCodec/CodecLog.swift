import Logging

/// The decoders' logger: the library never prints.
enum CodecLog {
    static let logger = Logger(label: "FastImageCache.ImageCodec")

    /// Logs each recoverable-damage warning of a decode at `warning` level.
    static func warnings(_ warnings: [String], format: ImageFileFormat, path: String?) {
        for warning in warnings {
            var metadata: Logger.Metadata = ["format": "\(format.rawValue)"]
            if let path { metadata["path"] = "\(path)" }
            logger.warning("Decoded past recoverable damage: \(warning)", metadata: metadata)
        }
    }
}
