import Foundation
import NIOCore
import NIOPosix
import Testing

/// An HTTP/1.1 server in the test process, on 127.0.0.1, that misbehaves on request:
///
/// - `/bytes/N[?etag=E&maxage=S&nostore=1&lastmodified=1]`: N bytes of a fixed pattern; answers
///   304 to a matching `If-None-Match` (or to any `If-Modified-Since` with `lastmodified`).
/// - `/reset/N`: announces N bytes, sends half, then resets the connection.
/// - `/stall/N`: announces N bytes, sends a quarter, then nothing.
/// - `/short/N`: announces N bytes, sends half, then closes (a wrong `Content-Length`).
/// - `/nolength/N`: N bytes without a length, ended by closing (valid HTTP/1.1).
/// - `/huge/N`: N bytes (up to terabytes), written as fast as the client reads, never buffered.
/// - `/loris/N`: N bytes, one every 100 ms (a slow-loris server).
/// - `/status/C`: status C; `/loop`: a redirect to itself; `/hops/K`: K redirects, then bytes.
/// - `/range/N[?lie=start|length|short]`: a file of N bytes answering a `Range` request with a
///   `206` of that range; with `lie`, a `Content-Range` that starts one byte late, a
///   `Content-Length` one byte long, or half the range and then a closed connection.
final class FaultServer: Sendable {
    struct Stats {
        var requests: [String: Int] = [:]
        var conditional: [String] = []
        var open = 0
        var maximumOpen = 0
    }

    let port: Int
    let stats: Locked<Stats>
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    private init(port: Int, channel: any Channel, stats: Locked<Stats>, group: MultiThreadedEventLoopGroup) {
        self.port = port
        self.channel = channel
        self.stats = stats
        self.group = group
    }

    /// Starts a server on a free port, on an event loop of its own (not the client's).
    static func start() async throws -> FaultServer {
        let stats = Locked(Stats())
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FaultHandler(stats: stats))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FaultServer(port: channel.localAddress!.port!, channel: channel, stats: stats, group: group)
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Requests made for `path` (without the query).
    func requests(_ path: String) -> Int { stats.withLockedValue { $0.requests[path] ?? 0 } }

    /// Stops listening and ends its event loop.
    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// The pattern's period: a prime, so that no chunk boundary lines up with it.
    static let period = 1_048_573

    /// The byte at `i` of every body this server sends.
    static func byte(at i: Int) -> UInt8 {
        let j = i % period
        return UInt8(truncatingIfNeeded: j &* 31 &+ j >> 8)
    }

    /// One period of the pattern, computed once.
    static let cycle: [UInt8] = (0..<period).map(byte(at:))

    /// The first `n` bytes of the pattern.
    static func body(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        while out.count < n { out += cycle.prefix(n - out.count) }
        return out
    }
}

/// Parses one request per connection and answers as its path says.
private final class FaultHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let stats: Locked<FaultServer.Stats>
    var received = ByteBuffer()
    var answered = false

    init(stats: Locked<FaultServer.Stats>) {
        self.stats = stats
    }

    func channelActive(context: ChannelHandlerContext) {
        stats.withLockedValue { s in
            s.open += 1
            s.maximumOpen = max(s.maximumOpen, s.open)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stats.withLockedValue { $0.open -= 1 }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        received.writeBuffer(&buffer)
        guard !answered, let text = received.getString(at: received.readerIndex, length: received.readableBytes),
            let end = text.range(of: "\r\n\r\n")
        else { return }
        answered = true
        let lines = text[..<end.lowerBound].split(separator: "\r\n").map(String.init)
        let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        let components = URLComponents(string: target)
        let path = components?.path ?? target
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        stats.withLockedValue { s in
            s.requests[path, default: 0] += 1
            if headers["if-none-match"] != nil || headers["if-modified-since"] != nil { s.conditional.append(path) }
        }
        respond(context: context, path: path, query: query, headers: headers)
    }

    private func respond(context: ChannelHandlerContext, path: String, query: [String: String], headers: [String: String]) {
        let parts = path.split(separator: "/").map(String.init)
        let kind = parts.first ?? ""
        let n = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        switch kind {
        case "bytes":
            let etag = query["etag"].map { "\"\($0)\"" }
            let lastModified = query["lastmodified"] != nil ? "Sun, 01 Nov 2026 10:00:00 GMT" : nil
            var extra: [String] = ["Connection: keep-alive"]
            if let etag { extra.append("ETag: \(etag)") }
            if let lastModified { extra.append("Last-Modified: \(lastModified)") }
            if let age = query["maxage"] { extra.append("Cache-Control: max-age=\(age)") }
            if query["nostore"] != nil { extra.append("Cache-Control: no-store") }
            if (etag != nil && headers["if-none-match"] == etag) || (lastModified != nil && headers["if-modified-since"] != nil) {
                head(context, status: "304 Not Modified", length: nil, extra: extra)
                answered = false
                received.clear()
                return
            }
            head(context, status: "200 OK", length: n, extra: extra)
            send(
                context, from: 0, to: n,
                then: { [self] in
                    answered = false; received.clear()
                })
        case "reset":
            head(context, status: "200 OK", length: n, extra: [])
            send(context, from: 0, to: n / 2) {
                // SO_LINGER 0: closing sends a reset instead of a normal end.
                guard let provider = context.channel as? any SocketOptionProvider else {
                    context.close(promise: nil)
                    return
                }
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            }
        case "stall":
            head(context, status: "200 OK", length: n, extra: [])
            send(context, from: 0, to: n / 4) {}
        case "short":
            head(context, status: "200 OK", length: n, extra: ["Connection: close"])
            send(context, from: 0, to: n / 2) { context.close(promise: nil) }
        case "nolength":
            head(context, status: "200 OK", length: nil, extra: ["Connection: close"])
            send(context, from: 0, to: n) { context.close(promise: nil) }
        case "huge":
            head(context, status: "200 OK", length: n, extra: [])
            send(context, from: 0, to: n, chunk: 1 << 20, patterned: false) { context.close(promise: nil) }
        case "loris":
            head(context, status: "200 OK", length: n, extra: [])
            trickle(context, from: 0, to: n)
        case "status":
            let reason = n == 404 ? "Not Found" : n == 500 ? "Internal Server Error" : "Status"
            head(context, status: "\(n) \(reason)", length: 5, extra: ["Connection: close"])
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "oops!")), promise: nil)
        case "range":
            // "bytes=FIRST-LAST", clipped at the file's end.
            let asked = (headers["range"] ?? "").dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
            guard asked.count == 2, asked[0] <= asked[1], asked[0] < n else {
                head(context, status: "416 Range Not Satisfiable", length: 0, extra: ["Connection: close"])
                return
            }
            let (first, last) = (asked[0], min(asked[1], n - 1))
            let lie = query["lie"]
            let range = lie == "start" ? "bytes \(first + 1)-\(last + 1)/\(n)" : "bytes \(first)-\(last)/\(n)"
            let length = last - first + 1 + (lie == "length" ? 1 : 0)
            head(context, status: "206 Partial Content", length: length, extra: ["Content-Range: \(range)", "Connection: close"])
            send(context, from: first, to: lie == "short" ? first + (last - first + 1) / 2 : last + 1) { context.close(promise: nil) }
        case "loop":
            head(context, status: "302 Found", length: 0, extra: ["Location: /loop", "Connection: close"])
        case "hops":
            if n > 0 {
                head(context, status: "302 Found", length: 0, extra: ["Location: /hops/\(n - 1)", "Connection: close"])
            } else {
                head(context, status: "200 OK", length: 100, extra: ["Connection: close"])
                send(context, from: 0, to: 100) {}
            }
        default:
            head(context, status: "404 Not Found", length: 0, extra: ["Connection: close"])
        }
    }

    private func head(_ context: ChannelHandlerContext, status: String, length: Int?, extra: [String]) {
        var text = "HTTP/1.1 \(status)\r\n"
        if let length { text += "Content-Length: \(length)\r\n" }
        for line in extra { text += line + "\r\n" }
        text += "\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
    }

    /// Writes the pattern's bytes `[from, to)` a chunk at a time, each after the last was written,
    /// so nothing piles up however large the body.
    /// Unpatterned bodies repeat one megabyte (their bytes are not checked).
    private func send(
        _ context: ChannelHandlerContext, from: Int, to: Int, chunk: Int = 1 << 16, patterned: Bool = true, then done: @escaping () -> Void
    ) {
        guard from < to else {
            done()
            return
        }
        let count = min(chunk, to - from)
        let buffer: ByteBuffer
        if patterned {
            let start = from % FaultServer.period
            let first = min(count, FaultServer.period - start)
            var b = Self.cycle.getSlice(at: start, length: first)!
            if first < count { b.writeImmutableBuffer(Self.cycle.getSlice(at: 0, length: count - first)!) }
            buffer = b
        } else {
            buffer = Self.megabyte.getSlice(at: 0, length: count)!
        }
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { [self] result in
            if case .success = result { send(context, from: from + count, to: to, chunk: chunk, patterned: patterned, then: done) }
        }
    }

    /// One byte every 100 ms.
    private func trickle(_ context: ChannelHandlerContext, from: Int, to: Int) {
        guard from < to, context.channel.isActive else { return }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: [FaultServer.byte(at: from)])), promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { [self] in
            trickle(context, from: from + 1, to: to)
        }
    }

    /// A megabyte for unpatterned bodies, shared by every write.
    private static let megabyte = ByteBuffer(bytes: FaultServer.body(1 << 20))
    /// One period of the pattern, shared by every write.
    private static let cycle = ByteBuffer(bytes: FaultServer.cycle)

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
