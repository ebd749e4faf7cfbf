#if Loader
import AsyncHTTPClient
import FICCore
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// HTTP(S) requests with AsyncHTTPClient: streamed bodies, redirects with a limit and without
/// cycles, connect and idle timeouts, and a per-host connection limit.
final class NetworkClient: Sendable {
    /// The start of a response whose body is still to be read.
    enum Opened {
        /// 2xx: read ``HTTPClientResponse/body``; return the permit when done.
        case body(HTTPClientResponse, HostPermit, contentLength: Int?)
        /// 304 to a conditional request: the stored copy is still good.
        case notModified(HTTPHeaders)
    }

    let configuration: LoaderConfiguration
    let client: HTTPClient
    let hosts: HostLimiter

    init(configuration: LoaderConfiguration) {
        self.configuration = configuration
        var c = HTTPClient.Configuration()
        c.redirectConfiguration =
            configuration.maximumRedirects == 0 ? .disallow : .follow(max: configuration.maximumRedirects, allowCycles: false)
        c.timeout = .init(connect: Self.amount(configuration.connectTimeout), read: Self.amount(configuration.idleTimeout))
        c.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.connectionsPerHost)
        // A refused connection fails at once (and is remembered by the back-off) instead of being
        // retried until the connect timeout.
        c.connectionPool.retryConnectionEstablishment = false
        c.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: c)
        hosts = HostLimiter(limit: configuration.connectionsPerHost)
    }

    deinit {
        // Shutting down keeps the client alive until it is done; nothing waits for it.
        client.shutdown { _ in }
    }

    /// Shuts the client down, waiting until its connections are closed.
    func shutdown() async throws {
        try await client.shutdown()
    }

    /// Sends a GET for `url` (conditional when `etag` or `lastModified` is given) and returns once
    /// the response head has arrived, holding a connection permit of the host until the body is
    /// read. The whole exchange must finish by `deadline`.
    func open(_ url: URL, etag: String?, lastModified: String?, deadline: ContinuousClock.Instant) async throws -> Opened {
        var headers = [("Accept", "image/*, */*;q=0.5")]
        if let etag, Self.isSafeHeaderValue(etag) { headers.append(("If-None-Match", etag)) }
        if let lastModified, Self.isSafeHeaderValue(lastModified) { headers.append(("If-Modified-Since", lastModified)) }
        let (response, permit) = try await get(url, headers: headers, deadline: deadline)
        if response.status == .notModified, etag != nil || lastModified != nil {
            return .notModified(response.headers)
        }
        guard (200..<300).contains(response.status.code) else {
            throw LoaderErrors.status(response.status, url: url)
        }
        let length = response.headers.first(name: "content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let length, length > configuration.maximumBodyBytes {
            throw ImageCacheError(
                .bodyTooLarge, "the server announced \(length) bytes, more than the \(configuration.maximumBodyBytes) allowed",
                path: url.absoluteString)
        }
        if let length, length < 0 {
            throw ImageCacheError(.network, "the server announced a negative length", path: url.absoluteString)
        }
        return .body(response, permit, contentLength: length)
    }

    /// Sends a GET for `url` with `headers` (and the configured `User-Agent`) once the host gives
    /// a connection permit, and returns when the response head has arrived, with the permit (held
    /// until the body is read). The whole exchange must finish by `deadline`.
    func get(_ url: URL, headers: [(String, String)], deadline: ContinuousClock.Instant) async throws -> (HTTPClientResponse, HostPermit) {
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw ImageCacheError(.unsupportedURL, "the URL has no host", path: url.absoluteString)
        }
        let hostKey = "\(url.scheme ?? "")://\(host):\(url.port ?? -1)"
        try await hosts.acquire(hostKey)
        let permit = HostPermit(limiter: hosts, host: hostKey)
        try Task.checkCancellation()
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let response = try await client.execute(request, deadline: .now() + Self.amount(max(remaining, .milliseconds(1))))
        return (response, permit)
    }

    /// Whether a value the server gave may be sent back in a header: printable ASCII only.
    static func isSafeHeaderValue(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    static func amount(_ d: Duration) -> TimeAmount {
        let c = d.components
        let (whole, o1) = c.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, o2) = whole.addingReportingOverflow(c.attoseconds / 1_000_000_000)
        return .nanoseconds(o1 || o2 ? Int64.max : sum)
    }
}
#endif
