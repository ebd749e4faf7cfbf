import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

/// The decoders log nothing themselves: the damage a decode went past is in the image's warnings,
/// and the cache logs each to the logger it was opened with.
@Suite struct DecodeDamageLogTests {
    /// A JPEG whose entropy-coded data is damaged in its middle (every 7th byte of 2 KB changed,
    /// 0xFF never written, so that no marker appears): libjpeg recovers, with warnings.
    static func damagedJPEG() throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: coffee))
        for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 2048, by: 7) where bytes[i] != 0xFF && bytes[i - 1] != 0xFF {
            bytes[i] = bytes[i] == 0x00 ? 0x55 : bytes[i] & 0x7F
        }
        return bytes
    }

    @Test func damageIsLoggedToTheCachesLogger() throws {
        let bytes = try Self.damagedJPEG()
        let warnings = try ImageDecoder.decode(bytes).warnings
        try #require(!warnings.isEmpty, "the damaged JPEG decodes with warnings")
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let logs = CapturedLogs()
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], logger: logs.logger)
        defer { cache.close() }
        try cache.setImage(encoded: bytes, for: Photo(entityID: "damaged", url: coffee), format: "medium")
        let logged = logs.messages(atLeast: .warning).filter { $0.hasPrefix("Decoded past recoverable damage") }
        #expect(!logged.isEmpty, "\(logged)")
    }
}
