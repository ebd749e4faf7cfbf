import FICCore
import FastImageCache
import Foundation

/// Stores photos in the gallery's cache on a thread of its own while the window is already
/// showing, each through the library's family policy (`storeImages`: one decode per photo, every
/// format drawn from it). A photo's cells fill in as soon as it is stored.
final class BackgroundIngest: Sendable {
    private let stopRequested = LockedBox(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts storing `sources` into `cache`, settling each in `catalog` (refused photos are
    /// settled as nil and stay placeholders).
    init(sources: [DemoSource], cache: ImageCache, catalog: GalleryCatalog) {
        let stop = stopRequested, finished = self.finished
        let thread = Thread {
            defer { finished.signal() }
            for (index, source) in sources.enumerated() {
                if stop.withLockedValue({ $0 }) { return }
                do {
                    let bytes = try ImageBytes(contentsOf: source.path)
                    let entity = DemoPhoto(entityID: source.name, sourceImageID: FileEntity.contentHash(bytes), url: URL(fileURLWithPath: source.path))
                    try cache.storeImages(from: .bytes(bytes), for: entity)
                    catalog.settle(.entity(entity), at: index)
                } catch {
                    catalog.settle(nil, at: index)
                }
            }
        }
        thread.name = "fic view: ingest"
        thread.start()
    }

    /// Asks the thread to stop after the photo it is storing, and waits for it.
    func stop() {
        stopRequested.withLockedValue { $0 = true }
        finished.wait()
        finished.signal()  // later calls return at once
    }
}
