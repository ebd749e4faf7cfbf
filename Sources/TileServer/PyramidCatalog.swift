#if Server
import FICCore
import Logging
import TiledImage

/// The store's pyramids that requests have named, kept open (a region reader each) for the next
/// request, at most ``capacity`` at once, the least recently used closed first. An open pyramid
/// keeps its file open (a new build of the name replaces the name, never the bytes served) and,
/// when the store built it, a shared lock on it, so that the store does not evict it. With a
/// folder of decoded tiles, each reader reads and keeps its pyramid's tiles in the pyramid's table
/// there (closed with the reader, once no answer uses it).
final class PyramidCatalog: Sendable {
    /// The most pyramids kept open.
    let capacity: Int
    private let store: TilePyramidStore
    /// Where decoded tiles are kept, and how many a pyramid; nil: none kept.
    private let decodedTiles: (directory: String, maximumTiles: Int)?
    private let logger: Logger
    /// The open readers by name, and their names least recently used first (each costing 1).
    private let open = LockedBox<(readers: [String: PyramidRegionReader], recency: RecencyList<String>)>(([:], RecencyList()))

    /// A catalog of `store`'s pyramids keeping at most `capacity` open, their decoded tiles in
    /// `decodedTiles`' folder when given.
    init(store: TilePyramidStore, capacity: Int, decodedTiles: (directory: String, maximumTiles: Int)? = nil, logger: Logger) {
        self.store = store
        self.capacity = max(1, capacity)
        self.decodedTiles = decodedTiles
        self.logger = logger
    }

    /// The reader of the pyramid called `name`, opened on first use (blocking: call it off the
    /// event loops).
    ///
    /// - Throws: `.notFound` when the store has no finished pyramid of that name (or the name is
    ///   not a pyramid name at all: one that tries to leave the store names nothing in it);
    ///   `.inUse` while it is being built; its open errors.
    func reader(_ name: String) throws -> PyramidRegionReader {
        if let reader = openReader(name) { return reader }
        let pyramid: TilePyramid?
        do {
            // Not marked used: the server writes nothing in the store it shares with others.
            pyramid = try store.open(name, markingUse: false)
        } catch let error as ImageCacheError where error.code == .invalidArgument {
            throw ImageCacheError(.notFound, "there is no pyramid called '\(name)' (\(error.message))")
        }
        guard let pyramid else { throw ImageCacheError(.notFound, "there is no pyramid called '\(name)'") }
        // A table that cannot be opened (a folder not writable, another process holding it alone)
        // costs only the decodes it would have saved: logged, and the pyramid served without it.
        var tiles: TileTable?
        if let decodedTiles {
            do {
                tiles = try pyramid.tileTable(directory: decodedTiles.directory, maximumTiles: decodedTiles.maximumTiles, logger: logger)
            } catch {
                logger.warning("the decoded tiles of '\(name)' are not kept: \(error)")
            }
        }
        let reader = try PyramidRegionReader(pyramid, tiles: tiles)
        open.withLockedValue { state in
            state.readers[name] = reader
            state.recency.store(name, cost: 1)
            while state.recency.count > capacity, let oldest = state.recency.oldest {
                state.recency.remove(oldest.key)
                state.readers[oldest.key] = nil
            }
        }
        return reader
    }

    /// The names of the store's finished pyramids, sorted.
    func names() throws -> [String] {
        try store.names()
    }

    /// The reader of `name` if it is open now (no I/O: callable on an event loop), or nil.
    func openReader(_ name: String) -> PyramidRegionReader? {
        open.withLockedValue { state in
            guard let found = state.readers[name] else { return nil }
            state.recency.touch(name)
            return found
        }
    }
}
#endif
