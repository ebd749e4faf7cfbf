#if Loader
import FICCore

extension ImageCacheError.Code {
    /// The server answered with an HTTP status other than success; the message names the status
    /// and ``ImageCacheError/path`` the URL.
    public static let httpStatus = ImageCacheError.Code("httpStatus")
    /// The connection could not be made, or broke (refused, reset, closed early, bad response).
    public static let network = ImageCacheError.Code("network")
    /// Connecting, waiting for the next bytes, or the whole download took longer than allowed.
    public static let timedOut = ImageCacheError.Code("timedOut")
    /// The server redirected more often than allowed, or in a cycle.
    public static let tooManyRedirects = ImageCacheError.Code("tooManyRedirects")
    /// The body is larger than the configured maximum; it was not read to the end.
    public static let bodyTooLarge = ImageCacheError.Code("bodyTooLarge")
    /// The URL's scheme is not `http`, `https` or `file`, or the URL has no host.
    public static let unsupportedURL = ImageCacheError.Code("unsupportedURL")
    /// The URL failed a moment ago and is not tried again until its back-off period ends;
    /// ``ImageCacheError/underlying`` is the failure remembered.
    public static let recentlyFailed = ImageCacheError.Code("recentlyFailed")
}
#endif
