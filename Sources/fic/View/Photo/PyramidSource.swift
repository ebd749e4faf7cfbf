import FICCore
import Foundation
import TiledImage

/// Where the photo's pyramid comes from: a saved pyramid folder (opened at once), or an image
/// file turned into a throwaway pyramid on a thread of its own while the window shows progress.
final class PyramidSource: Sendable {
    private enum State {
        case building(received: Int, total: Int)
        case ready(TilePyramid)
        case failed(String)
    }

    private let state: LockedBox<State>
    private let cancelled = LockedBox(false)
    private let name: String

    /// A pyramid saved by `fic tile` (or `TilePyramidBuilder` with a folder destination).
    init(folder: String) throws {
        name = (folder as NSString).lastPathComponent
        do {
            state = LockedBox(.ready(try TilePyramid.open(at: folder)))
        } catch {
            throw CLIError("cannot open the tile pyramid \(folder): \(error)")
        }
    }

    /// Builds a throwaway pyramid of the image file at `path` (in `temporaryFolder`, or `$TMPDIR`)
    /// on a thread of its own, reading it in 1 MiB chunks.
    init(imageFile path: String, temporaryFolder: String?) throws {
        name = (path as NSString).lastPathComponent
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let total = Int(info.st_size)
        let state = LockedBox<State>(.building(received: 0, total: total))
        let cancelled = self.cancelled
        self.state = state
        let builder: TilePyramidBuilder
        do {
            builder = try TilePyramidBuilder(destination: .temporary(folder: temporaryFolder))
        } catch {
            throw CLIError("cannot start a tile pyramid: \(error)")
        }
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let thread = Thread {
            defer { try? file.close() }
            do {
                var received = 0
                while true {
                    if cancelled.withLockedValue({ $0 }) { builder.cancel(); return }
                    let chunk = try file.read(upToCount: 1 << 20) ?? Data()
                    if chunk.isEmpty { break }
                    try builder.append(chunk)
                    received += chunk.count
                    state.withLockedValue { $0 = .building(received: received, total: max(total, received)) }
                }
                let pyramid = try builder.finish()
                state.withLockedValue { $0 = .ready(pyramid) }
            } catch {
                state.withLockedValue { $0 = .failed("cannot tile \(path): \(error)") }
            }
        }
        thread.name = "fic view: pyramid"
        thread.start()
    }

    /// The pyramid, once it is ready.
    var pyramid: TilePyramid? {
        state.withLockedValue { if case .ready(let p) = $0 { return p } else { return nil } }
    }

    /// What is happening, for the window and the overlay.
    var status: String {
        switch state.withLockedValue({ $0 }) {
        case .building(let received, let total):
            return "building the tile pyramid of \(name): \(Formatting.bytes(received)) of \(Formatting.bytes(total)) read"
        case .ready: return name
        case .failed(let message): return message
        }
    }

    /// Stops a build that is still going on.
    func cancel() {
        cancelled.withLockedValue { $0 = true }
    }
}
