#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation

/// Stores photos in the gallery's cache on a thread of its own while the window is already
/// showing, each through the library's family policy (`storeImages`: one decode per photo, every
/// format drawn from it, nothing decoded when every format holds it already). A photo's cells
/// fill in as soon as it is stored. Then, for a cache kept between launches, it lets
/// ``GalleryKeeping`` remember the photos' versions and keep the cache folder under its limit.
final class BackgroundIngest: Sendable {
    private let stopRequested = LockedBox(false)
    /// Whether every pending photo is stored or refused (or the ingest was stopped).
    private let settled: ConditionBox<Bool>
    private let thread: WorkerThread

    /// Starts storing the photos of `photos` at the indices `pending` (read and hashed, since the
    /// memo did not know them or the cache lacked them) into `cache`, settling each in `catalog`
    /// (refused photos are settled as nil and stay placeholders).
    ///
    /// - Throws: ``CLIError`` when the system cannot start another thread.
    init(photos: GalleryPhotos, pending: [Int], cache: ImageCache, catalog: GalleryCatalog, keeping: GalleryKeeping?) throws {
        let stop = stopRequested, settled = ConditionBox(false)
        self.settled = settled
        thread = try CLIError.starting("the ingest") {
            try WorkerThread(name: "fic view: ingest") {
                Self.run(photos: photos, pending: pending, cache: cache, catalog: catalog, keeping: keeping, stop: stop, settled: settled)
            }
        }
    }

    private static func run(
        photos: GalleryPhotos, pending: [Int], cache: ImageCache, catalog: GalleryCatalog, keeping: GalleryKeeping?, stop: LockedBox<Bool>,
        settled: ConditionBox<Bool>
    ) {
        var fresh: [Int: SourceMemo.Row?] = [:]
        for index in pending {
            if stop.withLockedValue({ $0 }) { break }
            let photo = photos.photos[index]
            do {
                let hashed = try SourceMemo.readAndHash(photo.path)
                fresh.updateValue(hashed.row, forKey: index)
                let entity = photo.entity(hash: hashed.hash)
                try cache.storeImages(from: .bytes(hashed.bytes), for: entity)
                catalog.settle(.entity(entity), at: index)
            } catch {
                catalog.settle(nil, at: index)
            }
        }
        settled.update { $0 = true }
        for line in keeping?.finish(photos: photos, fresh: fresh, cache: cache) ?? [] { Terminal.error(line) }
    }

    /// Waits until every pending photo is stored or refused (or the ingest was stopped).
    func waitUntilSettled() {
        settled.withLockedValue(waitingUntil: { $0 }) { _ in }
    }

    /// Asks the thread to stop after the photo it is storing, and waits for it.
    func stop() {
        stopRequested.withLockedValue { $0 = true }
        thread.join()
    }
}
#endif
