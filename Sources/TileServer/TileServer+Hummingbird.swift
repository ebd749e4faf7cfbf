#if Server
import Hummingbird
import HTTPTypes
import HummingbirdCore
import FICCore
import Logging

extension TileServer {
    /// Adds the server's routes (GET and HEAD) to an application's own Hummingbird `router`,
    /// under `mountPath` (such as `/images`, or empty for the root): `/iiif/3/…`, `/dzi/…`,
    /// `/view/NAME`, and the list of pyramids at the mount path itself.
    public func addRoutes<Routes: RouterMethods>(to router: Routes, mountPath: String = "") {
        let mount = mountPath.hasSuffix("/") ? String(mountPath.dropLast()) : mountPath
        for path in ["/", "/iiif/**", "/dzi/**", "/view/**"] {
            let full = RouterPath(mount + (mount.isEmpty || path != "/" ? path : ""))
            for method in [HTTPRequest.Method.get, .head] {
                router.on(full, method: method) { request, _ -> Response in
                    await self.respond(to: request, mountPath: mount)
                }
            }
        }
    }

    /// Serves the store alone on `host`:`port` (0 picks a free port) until the task is cancelled
    /// or the process receives SIGTERM or SIGINT; `onRunning` is told the port once connections
    /// are accepted. Idle connections close after 30 s; at most `maximumConnections` are open at
    /// once (the process's open-file limit is raised for them, as far as its hard limit allows).
    /// The HTTP server logs to `logger`, or to the logger the server was made with.
    public func run(
        host: String, port: Int, maximumConnections: Int = 4096, logger: Logger? = nil,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        // Each connection is a descriptor; keep some for the pyramids' files.
        let files = OpenFileLimit.raise(upTo: maximumConnections + 1024)
        let maximumConnections = max(64, min(maximumConnections, files - 256))
        let router = Router()
        addRoutes(to: router)
        let application = Application(
            router: router,
            server: http1Server(configuration: .init(idleTimeout: .seconds(30))),
            configuration: .init(
                address: .hostname(host, port: port), availableConnectionsDelegate: MaximumAvailableConnections(maximumConnections)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger ?? self.logger
        )
        try await application.runService()
    }

    /// The names the server answers with, checked once (rather than per response).
    private static let fieldNames: [String: HTTPField.Name] = Dictionary(
        uniqueKeysWithValues: [
            "Access-Control-Allow-Origin", "Content-Type", "Cache-Control", "ETag", "Last-Modified", "Location", "Link", "Retry-After"
        ]
        .compactMap { name in HTTPField.Name(name).map { (name, $0) } })

    /// The HTTP header fields of `answer`, with its `Content-Length`.
    static func fields(of answer: TileServerResponse) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(answer.headers.count + 1)
        for header in answer.headers {
            if let name = fieldNames[header.name] ?? HTTPField.Name(header.name) {
                fields.append(HTTPField(name: name, value: header.value))
            }
        }
        fields[.contentLength] = String(answer.body.count)
        return fields
    }

    /// The answer to a Hummingbird request, through ``respond(to:)``.
    private func respond(to request: Request, mountPath: String) async -> Response {
        let path = request.uri.path
        let relative = path.hasPrefix(mountPath) ? String(path.dropFirst(mountPath.count)) : path
        let answer = await respond(
            to: TileServerRequest(
                path: relative.isEmpty ? "/" : relative,
                host: request.head.authority,
                ifNoneMatch: request.headers[.ifNoneMatch],
                ifModifiedSince: request.headers[.ifModifiedSince],
                mountPath: mountPath
            ))
        let fields = Self.fields(of: answer)
        let body =
            request.method == .head || answer.body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
    }
}
#endif
