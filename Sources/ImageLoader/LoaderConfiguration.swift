#if Loader
/// Limits and timeouts of an ``OriginalsLoader``.
public struct LoaderConfiguration: Sendable, Hashable {
    /// The largest body accepted, in bytes; larger ones fail with `.bodyTooLarge` as soon as
    /// that is known (from `Content-Length`, or when the count passes it). Defaults to 64 MiB.
    public var maximumBodyBytes: Int
    /// Connections to one host (scheme, name and port) at once. Defaults to 6.
    public var connectionsPerHost: Int
    /// How long connecting may take. Defaults to 10 s.
    public var connectTimeout: Duration
    /// How long the server may send nothing while the response is awaited or streamed (a
    /// stalled body). Defaults to 15 s.
    public var idleTimeout: Duration
    /// How long one whole download may take, however steadily the bytes trickle in (a
    /// slow-loris server). Defaults to 120 s.
    public var totalTimeout: Duration
    /// How many redirects are followed; cycles are refused. Defaults to 5.
    public var maximumRedirects: Int
    /// How long a failed URL is not tried again: doubled for each further failure, up to
    /// ``maximumFailureBackoff``. Zero turns the memory off. Defaults to 10 s.
    public var failureBackoff: Duration
    /// The longest back-off. Defaults to 10 minutes.
    public var maximumFailureBackoff: Duration
    /// How long a stored original whose response gave no `max-age` stays fresh before it is
    /// revalidated; nil keeps it fresh until evicted. Defaults to nil.
    public var defaultMaximumAge: Duration?
    /// The `User-Agent` header sent.
    public var userAgent: String

    /// A configuration; every argument has the documented default.
    public init(
        maximumBodyBytes: Int = 64 << 20, connectionsPerHost: Int = 6, connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(15), totalTimeout: Duration = .seconds(120), maximumRedirects: Int = 5,
        failureBackoff: Duration = .seconds(10), maximumFailureBackoff: Duration = .seconds(600),
        defaultMaximumAge: Duration? = nil, userAgent: String = "FastImageCache-ImageLoader/1"
    ) {
        self.maximumBodyBytes = max(1, maximumBodyBytes)
        self.connectionsPerHost = max(1, connectionsPerHost)
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.maximumRedirects = max(0, maximumRedirects)
        self.failureBackoff = failureBackoff
        self.maximumFailureBackoff = maximumFailureBackoff
        self.defaultMaximumAge = defaultMaximumAge
        self.userAgent = userAgent
    }
}
#endif
