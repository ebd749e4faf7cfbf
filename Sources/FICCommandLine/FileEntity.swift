#if Tool
import FICCore
import FastImageCache
import Foundation

/// An image file stored in the cache: named by its path relative to the ingested folder,
/// versioned by a hash of its bytes (so an edited file is redrawn, an untouched one is not).
package struct FileEntity: ImageEntity {
    /// The path relative to the ingested folder.
    package let entityID: String
    /// The SHA-256 of the file's bytes, 64 hex digits.
    package let sourceImageID: String
    /// The file.
    package let url: URL

    /// The file at `url`, named `entityID`, in the version `sourceImageID`.
    package init(entityID: String, sourceImageID: String, url: URL) {
        self.entityID = entityID
        self.sourceImageID = sourceImageID
        self.url = url
    }

    package func sourceImageURL(for format: ImageFormat) -> URL? { url }

    /// The SHA-256 of `bytes` as 64 hex digits: the source version. A cryptographic hash, so
    /// that no edited file can keep the version (and so the thumbnail) of the original.
    package static func contentHash(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { SHA256Hex.digest(of: $0) }
    }
}
#endif
