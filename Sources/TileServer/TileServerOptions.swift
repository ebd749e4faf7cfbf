#if Server
import Foundation

/// How a ``TileServer`` answers.
public struct TileServerOptions: Sendable {
    /// The largest image answer (announced in every `info.json`).
    public var limits = IIIFLimits()
    /// Whether IIIF `^` sizes may enlarge a region (listed as the `sizeUpscaling` extra feature
    /// in `info.json`); when false, such a request is answered 501 Not Implemented. Enlarged
    /// answers are bounded by ``limits`` as every other answer is.
    public var sizeUpscaling = true
    /// The JPEG and WebP quality of encoded answers (1…100).
    public var quality = 85
    /// Bytes of encoded answers kept in memory for the next request (64 MiB by default).
    public var encodedCacheBytes = 64 << 20
    /// Threads that read and encode (by default one per core): the server's CPU and memory bound.
    public var renderThreads = ProcessInfo.processInfo.activeProcessorCount
    /// Requests that may wait for a render thread; beyond them a request is answered 503 at once.
    public var maximumQueuedRenders = 256
    /// Pyramids kept open between requests.
    public var openPyramids = 32
    /// A folder where the tiles the server decodes (for regions, sizes and tiles not answered as
    /// stored) are kept decoded, one image table a pyramid (`TilePyramid.tileTable`): a tile decoded
    /// for one answer is read in place for the next, in this run and the next, and by the other
    /// servers and viewers sharing the folder. Nil (the default): each answer decodes its tiles.
    public var decodedTilesDirectory: String?
    /// The most tiles each pyramid's table keeps (256 KiB each), least recently used going first.
    public var decodedTilesPerPyramid = 4096
    /// The URL the routes are reached at from outside, such as `https://tiles.example.org/images`
    /// (no trailing `/`): what `info.json` ids begin with behind a proxy or CDN. When nil, ids are
    /// made from the request's `Host` header (checked to be a host name and port).
    public var publicBaseURL: String?
    /// `Cache-Control` of tiles and images: a pyramid under a name does not change while it is
    /// served (it cannot be rebuilt while open), so a week; revalidation is by `ETag`.
    public var imageCacheControl = "public, max-age=604800"
    /// `Cache-Control` of descriptors and pages: an hour, as a rebuild under the same name may change them.
    public var documentCacheControl = "public, max-age=3600"

    /// The default options.
    public init() {}
}
#endif
