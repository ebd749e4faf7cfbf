#if Server
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Gives every error answer of a connection that has an empty body (`Content-Length: 0`) a
/// plain-text one saying why, as the server's own refusals (``TileServer/respond(to:)``) have:
/// the router's 404 for a path no route takes (a 405 naming the methods served, when the method
/// is not GET or HEAD and the path is the server's), and HummingbirdCore's 400 for bytes that
/// are not an HTTP request. Other answers pass unchanged (the answer to a HEAD keeps the length
/// of the GET's body, and has none).
///
/// It sits right after ``TileServerFastPath``, so that it sees every request head the router is
/// given and every answer written from the router's side (the fast path answers a request only
/// when none of the connection's is with the router, and writes nothing but kept answers and
/// 304s, so it never comes between them): HTTP/1.1 answers come in the order of the requests, so
/// an answer is for the oldest request not yet answered (none for bytes that never made a request).
final class TileServerErrorBodies: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// A request not answered yet.
    private struct Asked {
        let method: HTTPRequest.Method
        let path: String
    }

    private let server: TileServer
    private let mountPath: String
    /// The requests read and not answered yet, oldest first.
    private var unanswered = CircularBuffer<Asked>()

    init(server: TileServer, mountPath: String) {
        self.server = server
        self.mountPath = mountPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            unanswered.append(Asked(method: head.method, path: head.path ?? ""))
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An interim answer (100 Continue) is not the request's answer: the final one is to come.
        guard case .head(let head) = unwrapOutboundIn(data), head.status.code >= 200 else {
            context.write(data, promise: promise)
            return
        }
        let asked = unanswered.popFirst()
        guard head.status.code >= 400, head.headerFields[.contentLength] == "0" else {
            context.write(data, promise: promise)
            return
        }
        writeExplained(head, asked: asked, promise: promise, context: context)
    }

    /// Writes `head`, an error answer with an empty body, with the body (and status) that say
    /// why; its end follows, as written by whoever answered.
    private func writeExplained(_ head: HTTPResponse, asked: Asked?, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        let answer = explanation(of: head.status, asked: asked)
        var fields = head.headerFields
        fields[.contentType] = nil
        fields[.contentLength] = nil
        fields.append(contentsOf: TileServer.fields(of: answer))
        let response = HTTPResponse(status: .init(code: answer.status), headerFields: fields)
        context.write(wrapOutboundOut(.head(response)), promise: promise)
        if asked?.method != .head {
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: answer.body))), promise: nil)
        }
    }

    /// The answer that says why `status` was given to `asked` (nil: bytes that made no request).
    private func explanation(of status: HTTPResponse.Status, asked: Asked?) -> TileServerResponse {
        guard let asked else {
            return server.refusal(status.code, "the request could not be read: it is not a valid HTTP/1.1 request")
        }
        var path = asked.path
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        let ours = path == mountPath || path.hasPrefix(mountPath + "/")
        switch status.code {
        case 404 where ours && asked.method != .get && asked.method != .head:
            return server.refusal(
                405, "the method \(asked.method.rawValue) is not allowed: this server answers only GET and HEAD", [("Allow", "GET, HEAD")])
        case 404 where ours:
            return server.refusal(404, TileServer.noSuchPage(String(path.dropFirst(mountPath.count)), mountPath: mountPath))
        case 404:
            return server.refusal(404, "no such page: \(TileServer.shortened(path))")
        default:
            return server.refusal(status.code, "the request for \(TileServer.shortened(path)) was refused (\(status))")
        }
    }
}
#endif
