import FastImageCache
import Foundation

/// An image file stored in the cache: named by its path relative to the ingested folder,
/// versioned by a hash of its bytes (so an edited file is redrawn, an untouched one is not).
struct FileEntity: ImageEntity {
    /// The path relative to the ingested folder.
    let entityID: String
    /// The XXH64 of the file's bytes, 16 hex digits.
    let sourceImageID: String
    /// The file.
    let url: URL

    func sourceImageURL(for format: ImageFormat) -> URL? { url }

    /// The hash of `bytes` as 16 hex digits: the source version.
    static func contentHash(_ bytes: Data) -> String {
        let h = bytes.withUnsafeBytes { XXH64.hash($0) }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
