#if Server
import FICCore

extension ImageCacheError.Code {
    /// The tile server has nothing at the path asked for: no pyramid of that name, no such
    /// level or tile (an HTTP 404).
    public static let notFound = ImageCacheError.Code("notFound")
    /// The tile server has more work queued than it takes; ask again shortly (an HTTP 503).
    public static let busy = ImageCacheError.Code("busy")
    /// The request is valid, but asks for something the server does not offer: a IIIF `^` size
    /// that enlarges the region when upscaling is off (an HTTP 501, as the Image API 3.0 asks).
    public static let notImplemented = ImageCacheError.Code("notImplemented")
}
#endif
