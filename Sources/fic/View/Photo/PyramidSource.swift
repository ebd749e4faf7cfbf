#if Tool
import FICCommandLine
import FICCore
import Foundation
import TiledImage

/// A pyramid being built in the background for the photo (from an image file, or from a
/// download) while the window shows progress. Thread-safe: builders report through ``progress(received:total:)``,
/// ``progress(adding:)``, ``finish(_:)`` and ``fail(_:)``.
final class PyramidSource: Sendable {
    private enum State {
        case building(received: Int, total: Int)
        case ready(TilePyramid)
        case failed(String)
    }

    private let state: LockedBox<State>
    private let cancellation = LockedBox<(cancelled: Bool, handlers: [@Sendable () -> Void])>((false, []))
    /// The builder of a pyramid being built, once it exists: its written tiles are shown meanwhile.
    private let builderBox = LockedBox<TilePyramidBuilder?>(nil)
    /// Set when a build held on purpose (tests) has settled: no more rows will be written.
    private let heldBox = LockedBox(false)
    /// The name shown while building.
    let name: String

    /// The pyramid given as a folder: what ``TilePyramid/open(at:)`` says of it (a pyramid folder
    /// of an earlier version, with how to build it again as a TIFF; any other folder refused).
    init(folder: String) throws {
        name = (folder as NSString).lastPathComponent
        do {
            state = LockedBox(.ready(try TilePyramid.open(at: folder)))
        } catch {
            throw CLIError("cannot open the tile pyramid \(folder): \(error)")
        }
    }

    /// A pyramid that a builder will deliver.
    init(building name: String) {
        self.name = name
        state = LockedBox(.building(received: 0, total: 0))
    }

    /// Builds a throwaway pyramid of the image file at `path` (in `temporaryFolder`, or `$TMPDIR`)
    /// on a thread of its own (``TilePyramidBuilder/build(contentsOf:progress:)``: 1 MiB chunks,
    /// or a TIFF read where it lies).
    /// `holdAfterBytes` (tests) feeds only that many bytes, then waits until the viewer closes:
    /// the build stays half done.
    static func building(imageFile path: String, temporaryFolder: String?, holdAfterBytes: Int? = nil) throws -> PyramidSource {
        let info: stat
        do {
            info = try fileStatus(atPath: path)
        } catch let error as ImageCacheError {
            throw CLIError("cannot read \(path): \(error.errno.map(ImageCacheError.reason) ?? error.message)")
        }
        let builder: TilePyramidBuilder
        do {
            builder = try TilePyramidBuilder(destination: .temporary(folder: temporaryFolder))
        } catch {
            throw CLIError("cannot start a tile pyramid: \(error)")
        }
        let file: FileHandle
        do {
            file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("cannot open \(path): \(error.localizedDescription)")
        }
        let source = PyramidSource(building: (path as NSString).lastPathComponent)
        source.progress(received: 0, total: Int(info.st_size))
        source.building(builder)
        source.onCancel { builder.cancel() }
        try CLIError.starting("the pyramid's build") {
            try WorkerThread.detach(name: "fic view: pyramid") {
                defer { try? file.close() }
                do {
                    if holdAfterBytes == nil {
                        // The builder reads the file itself: in chunks, or where it lies for a format
                        // whose directory comes last (TIFF).
                        source.finish(try builder.build(contentsOf: path) { source.progress(adding: $0) })
                        return
                    }
                    var fed = 0
                    var settled: (rows: [Int], since: ContinuousClock.Instant)?
                    while !source.isCancelled {
                        if let holdAfterBytes, fed >= holdAfterBytes {
                            // Held: once the writes of what was fed have settled (no row of tiles
                            // completed for 300 ms), the viewer may count as idle.
                            usleep(10_000)
                            let rows = builder.completedTileRows
                            if settled?.rows != rows { settled = (rows, .now) }
                            if let settled, ContinuousClock.now - settled.since > .milliseconds(300) { source.held() }
                            continue
                        }
                        let count = min(1 << 20, holdAfterBytes.map { $0 - fed } ?? Int.max)
                        let chunk = try file.read(upToCount: count) ?? Data()
                        fed += chunk.count
                        if chunk.isEmpty {
                            source.finish(try builder.finish())
                            return
                        }
                        try builder.append(chunk)
                        source.progress(adding: chunk.count)
                    }
                } catch {
                    if !source.isCancelled { source.fail("cannot tile \(path): \(error)") }
                }
            }
        }
        return source
    }

    // MARK: Builders report

    /// Sets the bytes received and expected (0: unknown).
    func progress(received: Int, total: Int) {
        state.withLockedValue { if case .building = $0 { $0 = .building(received: received, total: total) } }
    }

    /// Adds `count` bytes received.
    func progress(adding count: Int) {
        state.withLockedValue { if case .building(let r, let t) = $0 { $0 = .building(received: r + count, total: t) } }
    }

    /// The builder whose finished rows of tiles may be shown while it builds.
    func building(_ builder: TilePyramidBuilder) {
        builderBox.withLockedValue { $0 = builder }
    }

    /// A held build (tests) has settled.
    func held() {
        heldBox.withLockedValue { $0 = true }
    }

    /// Whether a held build (tests) has settled: nothing more will be written.
    var isHeld: Bool { heldBox.withLockedValue { $0 } }

    /// The pyramid is ready.
    func finish(_ pyramid: TilePyramid) {
        state.withLockedValue { $0 = .ready(pyramid) }
        builderBox.withLockedValue { $0 = nil }
    }

    /// The build failed with `message`.
    func fail(_ message: String) {
        state.withLockedValue { $0 = .failed(message) }
    }

    /// Whether the viewer has closed (builders stop).
    var isCancelled: Bool { cancellation.withLockedValue { $0.cancelled } }

    /// Calls `handler` when the viewer closes (at once if it has).
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now = cancellation.withLockedValue { c -> Bool in
            if c.cancelled { return true }
            c.handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    // MARK: The viewer reads

    /// The pyramid, once it is ready.
    var pyramid: TilePyramid? {
        state.withLockedValue { if case .ready(let p) = $0 { return p } else { return nil } }
    }

    /// Whether the build failed (its message is ``status``).
    var isFailed: Bool {
        state.withLockedValue { if case .failed = $0 { return true } else { return false } }
    }

    /// The builder, while the pyramid is being built (nil once ready, or for a saved pyramid).
    var builder: TilePyramidBuilder? {
        pyramid == nil ? builderBox.withLockedValue { $0 } : nil
    }

    /// The part of the input received, 0…1, while building with a known size.
    var fraction: Double? {
        state.withLockedValue {
            if case .building(let received, let total) = $0, total > 0 { return min(1, Double(received) / Double(total)) }
            return nil
        }
    }

    /// What is happening, for the window and the overlay.
    var status: String {
        switch state.withLockedValue({ $0 }) {
        case .building(let received, let total):
            let of = total > 0 ? " of \(Formatting.bytes(total))" : ""
            return "building the tile pyramid of \(name): \(Formatting.bytes(received))\(of) read"
        case .ready: return name
        case .failed(let message): return message
        }
    }

    /// Stops a build that is still going on.
    func cancel() {
        let handlers = cancellation.withLockedValue { c -> [@Sendable () -> Void] in
            c.cancelled = true
            defer { c.handlers = [] }
            return c.handlers
        }
        for handler in handlers { handler() }
    }
}
#endif
