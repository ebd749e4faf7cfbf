/// How a table (or a cache) is opened.
public struct TableOpenOptions: Sendable, Hashable {
    /// Open for reading only: nothing is ever written (no recency, no repairs), the file is
    /// shared with other readers, and inserts fail with `.readOnly`. A table on a read-only file
    /// system is opened this way even when this is false.
    public var readOnly: Bool
    /// Accept a folder given by the caller that is a symbolic link. Off by default: a cache folder
    /// that is a link to somewhere else is refused, so that the cache never writes where it was
    /// not pointed. Links inside the cache's own folders are never followed.
    public var followsSymbolicLinkedFolder: Bool
    /// How long to wait for another process (or cache object) to close the table before failing
    /// with `.inUse`. Zero fails at once.
    public var lockTimeout: Duration
    /// How long a store waits for the table's writer lock, held by another process's store for
    /// the few microseconds it reserves or commits a slot, before failing with `.inUse`: only a
    /// process stopped in the middle of a store (`SIGSTOP`, a debugger) holds it longer. Lookups
    /// never take it.
    public var writerTimeout: Duration
    /// How long a cache's store waits for another process (or cache object) that is making the
    /// same entity's images before it makes them itself. The wait ends as soon as the other
    /// finishes or dies; only one stopped in the middle (or a decode slower than this) keeps it
    /// waiting this long.
    public var claimTimeout: Duration

    /// Creates options; the defaults open for writing, refuse linked folders, do not wait for
    /// the table to be closed, wait up to 10 s for another process's store, and up to a minute
    /// for another maker of the same images.
    public init(
        readOnly: Bool = false, followsSymbolicLinkedFolder: Bool = false, lockTimeout: Duration = .zero,
        writerTimeout: Duration = .seconds(10), claimTimeout: Duration = .seconds(60)
    ) {
        self.readOnly = readOnly
        self.followsSymbolicLinkedFolder = followsSymbolicLinkedFolder
        self.lockTimeout = lockTimeout
        self.writerTimeout = writerTimeout
        self.claimTimeout = claimTimeout
    }
}
