#if Tool
import FICDemo
import FICCommandLine
import FastImageCache
import Foundation

/// The gallery's photos, found before the first frame: every JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF file under the
/// folder, in name order, each with the version the memo remembers for it when the file is
/// unchanged since (its `stat` matches: the file is not read).
struct GalleryPhotos: Sendable {
    /// One photo.
    struct Photo: Sendable {
        /// The file.
        let path: String
        /// Its path relative to the folder: the entity's identifier.
        let name: String
        /// Its identity now (nil when it cannot be seen).
        let identity: SourceMemo.Identity?
        /// Its version (the hash of its bytes) as remembered, when the file has not changed since.
        let knownHash: String?

        /// The entity of the photo at version `hash`.
        func entity(hash: String) -> DemoPhoto {
            DemoPhoto(entityID: name, sourceImageID: hash, url: URL(fileURLWithPath: path))
        }
    }

    /// The folder's real path (links resolved).
    let folder: String
    /// The photos, in name order.
    let photos: [Photo]

    /// The photos under the real path `folder`, with what `memo` remembers of each. A file the
    /// memo knows unchanged is taken without reading it (it was an image when it was hashed);
    /// the others are kept when their first bytes announce an image.
    ///
    /// - Throws: ``CLIError`` when the folder cannot be read or holds no photo.
    init(folder: String, memo: SourceMemo) throws {
        var photos: [Photo] = []
        for file in try ImageFiles.files(under: folder) {
            let identity = SourceMemo.Identity(path: file.path)
            let known = identity.flatMap { memo.hash(of: file.relativePath, identity: $0) }
            guard known != nil || ImageFiles.sniff(file.path) != nil else { continue }
            photos.append(Photo(path: file.path, name: file.relativePath, identity: identity, knownHash: known))
        }
        guard !photos.isEmpty else { throw DemoPhotos.noPhotos(under: folder) }
        self.folder = folder
        self.photos = photos
    }

    /// The memo after a launch: the rows of photos hashed now (`fresh`, by photo index; a nil
    /// row is not to be trusted), and for the others their remembered row while the file is
    /// unchanged. Files no longer in the folder are forgotten.
    func memo(updating old: SourceMemo, fresh: [Int: SourceMemo.Row?]) -> SourceMemo {
        var rows: [String: SourceMemo.Row] = [:]
        for (index, photo) in photos.enumerated() {
            if let hashedNow = fresh[index] {
                rows[photo.name] = hashedNow  // nil: its times were too recent to trust
            } else if photo.knownHash != nil {
                rows[photo.name] = old.row(of: photo.name)
            }
        }
        return SourceMemo(rows: rows)
    }

    /// The entities `cache` holds images of that are no longer photos of the folder. An entry
    /// names its entity by a label cut to 59 bytes: a label that long may be cut, so it cannot
    /// name an entity for certain, and is left alone (the table's eviction takes it in time).
    func vanished(from cache: ImageCache) -> [String] {
        let present = Set(photos.map(\.name))
        var gone = Set<String>()
        for format in cache.formats {
            for entry in (try? cache.entries(format: format.name)) ?? [] where entry.label.utf8.count < 59 && !present.contains(entry.label)
            {
                gone.insert(entry.label)
            }
        }
        return gone.sorted()
    }
}
#endif
