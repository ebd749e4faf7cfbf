import FICCore

extension ImageCacheError.Code {
    /// A streamed input delivered no bytes for longer than the allowed stall time.
    public static let stalled = ImageCacheError.Code("stalled")
    /// The input stream failed (a reset connection, a read error) before the image was complete.
    public static let interrupted = ImageCacheError.Code("interrupted")
    /// A tile pyramid on disk is incomplete, damaged or of another version; build it again.
    public static let damagedPyramid = ImageCacheError.Code("damagedPyramid")
}

extension ImageCacheError.Code {
    /// A tile of a pyramid still being built was asked for before its row of tiles was written;
    /// ask again once ``TilePyramidBuilder/completedTileRows(level:)`` covers it.
    public static let notWrittenYet = ImageCacheError.Code("notWrittenYet")
}
