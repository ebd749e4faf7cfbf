#if Server
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers requests for images the server keeps, on the event loop that read them: no task, no
/// hop to another thread, the kept response written at once. Every other request goes on to the
/// application's router. A tile a viewer asks for again — most of a busy server's requests —
/// then costs the HTTP parse and one write.
///
/// It sits after Hummingbird's connection-state handler (which sees every request and response,
/// so idle timeouts and graceful shutdown count these too), and answers only when no request of
/// the connection is still with the router: HTTP/1.1 answers stay in the order of the requests.
final class TileServerFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let server: TileServer
    private let mountPath: String
    /// Requests passed on to the router whose answers have not ended yet.
    private var withRouter = 0
    /// Whether the parts of a request answered here are still arriving (and are dropped).
    private var dropping = false

    init(server: TileServer, mountPath: String) {
        self.server = server
        self.mountPath = mountPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head) where withRouter == 0 && !dropping:
            if let answer = kept(head) {
                dropping = true
                write(answer, head: head, context: context)
                return
            }
            withRouter += 1
            context.fireChannelRead(data)
        case .head:
            withRouter += 1
            context.fireChannelRead(data)
        case .body, .end:
            if dropping {
                if case .end = unwrapInboundIn(data) { dropping = false }
                return
            }
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { withRouter -= 1 }
        context.write(data, promise: promise)
    }

    /// The kept answer of a GET or HEAD, if the server has one.
    private func kept(_ head: HTTPRequest) -> TileServer.KeptAnswer? {
        guard head.method == .get || head.method == .head, let path = head.path, path.utf8.starts(with: mountPath.utf8) else { return nil }
        // The path after the mount point, without the query: sliced by its UTF-8 bytes, and the
        // request's own string when that is all of it (no copy).
        let utf8 = path.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: mountPath.utf8.count),
            end = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        let relative = start == utf8.startIndex && end == utf8.endIndex ? path : String(decoding: utf8[start..<end], as: UTF8.self)
        return server.keptAnswer(
            to: TileServerRequest(
                path: relative.isEmpty ? "/" : relative, ifNoneMatch: head.headerFields[.ifNoneMatch],
                ifModifiedSince: head.headerFields[.ifModifiedSince], mountPath: mountPath))
    }

    private func write(_ answer: TileServer.KeptAnswer, head: HTTPRequest, context: ChannelHandlerContext) {
        let response: HTTPResponse, body: ByteBuffer
        switch answer {
        case .kept(let entry):
            // The kept fields and body: shared, not copied.
            (response, body) = (HTTPResponse(status: .init(code: entry.status), headerFields: entry.fields), entry.body)
        case .other(let other):
            response = HTTPResponse(status: .init(code: other.status), headerFields: TileServer.fields(of: other))
            body = context.channel.allocator.buffer(bytes: other.body)
        }
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if head.method != .head, body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(body)), promise: nil)
        }
        let close = head.headerFields[.connection]?.lowercased() == "close"
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if close { context.close(promise: nil) }
    }
}

/// Hummingbird's HTTP/1 channel with ``TileServerErrorBodies`` and ``TileServerFastPath`` after
/// its connection-state handler.
struct TileServerHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let server: TileServer
    let mountPath: String

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            let fastPath = TileServerFastPath(server: server, mountPath: mountPath)
            try pipeline.addHandler(fastPath, position: .after(state))
            // After the fast path: it sees only the requests the router answers, and their answers
            // (no error of the fast path's to explain), and the fast path's answers do not pass it.
            try pipeline.addHandler(TileServerErrorBodies(server: server, mountPath: mountPath), position: .after(fastPath))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension TileServer {
    /// An HTTP/1 server for `Application(router:server:)` that answers the images this server
    /// keeps on the event loops, with the routes mounted at `mountPath` (``addRoutes(to:mountPath:)``)
    /// answering everything else; `configuration` as for Hummingbird's `.http1(configuration:)`.
    /// Error answers that have no body (the router's 404 for a path no route takes, a 400 for
    /// bytes that are not HTTP) are given a plain-text one saying why.
    public func http1Server(mountPath: String = "", configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        let mount = mountPath.hasSuffix("/") ? String(mountPath.dropLast()) : mountPath
        return HTTPServerBuilder { responder in
            TileServerHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration), server: self, mountPath: mount)
        }
    }
}
#endif
