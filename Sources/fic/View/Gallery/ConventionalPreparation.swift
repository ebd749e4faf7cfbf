#if Tool
import FICDemo
import FICCommandLine
import FICCore
import Foundation

/// Prepares the conventional path in the background: a JPEG thumbnail per photo, pre-rendered
/// once as the original demo did (``ConventionalStore``). The gallery can switch to it when it
/// is ready.
final class ConventionalPreparation {
    private let result: LockedBox<Result<ConventionalStore, CLIError>?>
    private var made: ConventionalCellSource?
    private let photoCount: Int
    private let progress: LockedBox<Int>
    private let thread: WorkerThread

    /// Starts making the thumbnails with `build` on a thread of its own. `build` returns the
    /// store, with one thumbnail per photo of the catalog, in catalog order.
    ///
    /// - Throws: ``CLIError`` when the system cannot start another thread.
    init(photoCount: Int, build: @escaping @Sendable (_ progress: @Sendable (Int) -> Void) throws -> ConventionalStore) throws {
        self.photoCount = photoCount
        let result = LockedBox<Result<ConventionalStore, CLIError>?>(nil), progress = LockedBox(0)
        self.result = result
        self.progress = progress
        thread = try CLIError.starting("the JPEG thumbnails") {
            try WorkerThread(name: "fic view: conventional thumbnails") {
                do {
                    let store = try build { done in progress.withLockedValue { $0 = done } }
                    result.withLockedValue { $0 = .success(store) }
                } catch let error as CLIError {
                    result.withLockedValue { $0 = .failure(error) }
                } catch {
                    result.withLockedValue { $0 = .failure(CLIError("\(error)")) }
                }
            }
        }
    }

    /// Waits until the thread has finished (before its folder is removed).
    func waitUntilReady() {
        thread.join()
    }

    /// Whether the thumbnails are ready (or failed).
    var isReady: Bool { result.withLockedValue { $0 != nil } }

    /// What is happening, for the overlay.
    var status: String {
        switch result.withLockedValue({ $0 }) {
        case nil: return "preparing JPEG thumbnails, \(progress.withLockedValue { $0 }) of \(photoCount)"
        case .failure(let error)?: return "unavailable: \(error.message)"
        case .success?: return "ready"
        }
    }

    /// The cell source, once the thumbnails are ready. Viewer thread only.
    var source: ConventionalCellSource? {
        if let made { return made }
        guard case .success(let store)? = result.withLockedValue({ $0 }) else { return nil }
        made = ConventionalCellSource(store: store)
        return made
    }
}
#endif
