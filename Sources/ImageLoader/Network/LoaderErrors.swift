#if Loader
import AsyncHTTPClient
import FICCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Turning what the HTTP stack throws into the package's one error type, with the URL.
enum LoaderErrors {
    /// `error` as an ``ImageCacheError`` about `url`. `received`/`expected` (body bytes) turn a
    /// connection that ended early into a clear `.truncated`.
    static func map(_ error: any Error, url: URL, received: Int? = nil, expected: Int? = nil) -> ImageCacheError {
        let path = url.absoluteString
        if let e = error as? ImageCacheError { return e.adding(path: path) }
        if error is CancellationError { return ImageCacheError(.cancelled, "the download was cancelled", path: path) }
        let progress = received.map { r in expected.map { " after \(r) of \($0) bytes" } ?? " after \(r) bytes" } ?? ""
        if let h = error as? HTTPClientError {
            switch h {
            case .readTimeout:
                return ImageCacheError(
                    .timedOut, "the server sent nothing for too long (stalled)\(progress)", path: path, underlying: error)
            case .cancelled:
                return ImageCacheError(.cancelled, "the download was cancelled", path: path, underlying: error)
            default:
                break
            }
        }
        if let received, let expected, received < expected {
            return ImageCacheError(
                .truncated, "the connection ended after \(received) of the \(expected) bytes the server announced; try again later",
                path: path, underlying: error)
        }
        if let h = error as? HTTPClientError {
            switch h {
            case .connectTimeout, .getConnectionFromPoolTimeout, .tlsHandshakeTimeout:
                return ImageCacheError(.timedOut, "connecting to the server took too long", path: path, underlying: error)
            case .readTimeout:
                return ImageCacheError(.timedOut, "the server sent nothing for too long (stalled)", path: path, underlying: error)
            case .deadlineExceeded:
                return ImageCacheError(.timedOut, "the server did not answer in time", path: path, underlying: error)
            case .redirectLimitReached:
                return ImageCacheError(.tooManyRedirects, "the server redirected too many times", path: path, underlying: error)
            case .redirectCycleDetected:
                return ImageCacheError(.tooManyRedirects, "the server's redirects form a loop", path: path, underlying: error)
            case .cancelled:
                return ImageCacheError(.cancelled, "the download was cancelled", path: path, underlying: error)
            case .remoteConnectionClosed:
                return ImageCacheError(
                    .network, "the server closed the connection before the response was complete", path: path, underlying: error)
            case .invalidURL, .emptyHost, .emptyScheme:
                return ImageCacheError(.unsupportedURL, "the URL cannot be fetched", path: path, underlying: error)
            default:
                return ImageCacheError(.network, "the download failed", path: path, underlying: error)
            }
        }
        if let io = error as? IOError {
            return ImageCacheError(.network, "the connection failed", path: path, errno: .init(rawValue: io.errnoCode), underlying: error)
        }
        if error is HTTPParserError {
            return ImageCacheError(.network, "the server's response is malformed", path: path, underlying: error)
        }
        if error is NIOConnectionError || error is ChannelError {
            return ImageCacheError(.network, "cannot connect to the server", path: path, underlying: error)
        }
        return ImageCacheError(.network, "the download failed", path: path, underlying: error)
    }

    /// The error for an HTTP status other than success.
    static func status(_ status: HTTPResponseStatus, url: URL) -> ImageCacheError {
        let hint =
            status.code >= 500
            ? "; the server failed, try again later" : status.code == 404 || status.code == 410 ? "; the image does not exist there" : ""
        return ImageCacheError(.httpStatus, "the server answered \(status.code) \(status.reasonPhrase)\(hint)", path: url.absoluteString)
    }
}
#endif
