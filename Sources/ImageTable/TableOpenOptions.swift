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

    /// Creates options; the defaults open for writing, refuse linked folders and do not wait.
    public init(readOnly: Bool = false, followsSymbolicLinkedFolder: Bool = false, lockTimeout: Duration = .zero) {
        self.readOnly = readOnly
        self.followsSymbolicLinkedFolder = followsSymbolicLinkedFolder
        self.lockTimeout = lockTimeout
    }
}
