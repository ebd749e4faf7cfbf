import ImageCodec

/// Where a pyramid's files go.
public enum TilePyramidDestination: Sendable, Hashable {
    /// Unnamed files that disappear when the ``TilePyramid`` is released (or the process ends),
    /// created in `folder`, or in `$TMPDIR` (else `/tmp`) when nil.
    case temporary(folder: String?)
    /// One tiled pyramidal TIFF file at this path (its folder must exist), the layout libvips,
    /// GDAL and iipsrv read: 256 × 256 tiles, full resolution first, each reduced level a
    /// following directory, every directory before the first tile. `compression` nil chooses
    /// JPEG at quality 94 (its colour 85) (``PyramidTIFFCompression/jpeg``) for an opaque image, level 0 of a JPEG
    /// source in the source's own quantisation, and deflate for one with alpha. The file gets its name only once complete (replacing a file of that name
    /// at once), so no reader ever finds it half-written; reopen it with ``TilePyramid/open(at:)``.
    case tiff(String, compression: PyramidTIFFCompression? = nil)
}

/// Limits and choices for building a pyramid.
public struct TilePyramidOptions: Sendable, Hashable {
    /// The smallest level is the first that fits in this size; nil: the first that fits in one tile.
    public var viewSize: PixelSize?
    /// The largest `width × height` accepted, checked as soon as the header has been read.
    public var maximumPixelCount: Int
    /// Whether damaged data is decoded past, as `DecodingOptions.allowCorruptData` says (the
    /// default); an input that ends before the image does always fails the build.
    public var allowCorruptData: Bool
    /// Progressive JPEGs whose coefficients need more than this many bytes keep them in a file.
    public var coefficientMemoryBudget: Int
    /// About how much of that file stays resident at a time.
    public var residentCoefficientLimit: Int
    /// The async builders fail with `.stalled` when no chunk arrives for this long.
    public var stallTimeout: Duration
    /// Whether each level keeps two strips (rows of tiles), so that one is written to the disk
    /// while the next fills: faster (the disk and the decoder work at the same time), at twice the
    /// strip memory (about 75 MB instead of 37 MB for an 18000-pixel-wide image).
    public var overlapWrites: Bool
    /// Whether a thread of its own prepares the coefficient file's pages ahead of the decoder
    /// (else the decoding thread does, more slowly); off only to test that way.
    var pagesCoefficientsInBackground = true

    /// Creates options; every parameter has the default described on its property.
    public init(
        viewSize: PixelSize? = nil, maximumPixelCount: Int = 1_000_000_000, allowCorruptData: Bool = true,
        coefficientMemoryBudget: Int = 64 << 20, residentCoefficientLimit: Int = 96 << 20,
        stallTimeout: Duration = .seconds(30), overlapWrites: Bool = true
    ) {
        self.overlapWrites = overlapWrites
        self.viewSize = viewSize
        self.maximumPixelCount = maximumPixelCount
        self.allowCorruptData = allowCorruptData
        self.coefficientMemoryBudget = coefficientMemoryBudget
        self.residentCoefficientLimit = residentCoefficientLimit
        self.stallTimeout = stallTimeout
    }
}
