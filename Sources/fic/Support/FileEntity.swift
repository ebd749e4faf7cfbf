#if Tool
import FICCore
import FastImageCache
import Foundation

/// An image file stored in the cache: named by its path relative to the ingested folder,
/// versioned by a hash of its bytes (so an edited file is redrawn, an untouched one is not).
struct FileEntity: ImageEntity {
    /// The path relative to the ingested folder.
    let entityID: String
    /// The SHA-256 of the file's bytes, 64 hex digits.
    let sourceImageID: String
    /// The file.
    let url: URL

    func sourceImageURL(for format: ImageFormat) -> URL? { url }

    /// The SHA-256 of `bytes` as 64 hex digits: the source version. A cryptographic hash, so
    /// that no edited file can keep the version (and so the thumbnail) of the original.
    static func contentHash(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { SHA256Hex.digest(of: $0) }
    }
}
#endif
