import FICTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TileServer

/// Every refusal the server can make over HTTP — 400, 404, 405 and 503, whether the server's
/// routes, the router or the HTTP parser made it — has a plain-text body that says why.
@Suite struct ErrorBodyTests {
    /// The application `fic serve` runs: the server's routes on a router, its HTTP/1 server.
    static func application(_ server: TileServer) -> some ApplicationProtocol {
        let router = Router()
        server.addRoutes(to: router)
        return Application(router: router, server: server.http1Server(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Checks that `response` is `status` with a plain-text body holding each of `words`, and
    /// returns the body.
    @discardableResult
    static func expectExplained(
        _ response: TestResponse, _ status: HTTPResponse.Status, _ words: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        let body = String(buffer: response.body)
        #expect(response.status == status, "\(body)", sourceLocation: sourceLocation)
        #expect(response.headers[.contentType] == "text/plain; charset=utf-8", sourceLocation: sourceLocation)
        #expect(!body.isEmpty && response.headers[.contentLength] == "\(response.body.readableBytes)", sourceLocation: sourceLocation)
        for word in words { #expect(body.contains(word), "\(word) in: \(body)", sourceLocation: sourceLocation) }
        return body
    }

    @Test func everyRefusalSaysWhy() async throws {
        let store = try PatternStore()
        let direct = await store.get("/nope")
        try await Self.application(store.server).test(.live) { client in
            // A path no route takes: the router's 404, with the server's own answer to it.
            try await client.execute(uri: "/nope", method: .get) { response in
                let body = Self.expectExplained(
                    response, .notFound, ["No such page: /nope.", "/iiif/3/NAME/", "/dzi/NAME.dzi", "/view/NAME"])
                #expect(Array(body.utf8) == direct.body, "the router's 404 and the server's own say the same")
            }
            try await client.execute(uri: "/iiif", method: .get) { response in
                Self.expectExplained(response, .notFound, ["No such page: /iiif."])
            }
            try await client.execute(uri: "/iiif/3/pattern/info.json/more", method: .get) { response in
                Self.expectExplained(response, .notFound, ["No such page: /iiif/3/pattern/info.json/more."])
            }
            // An unknown pyramid, level or tile: named.
            try await client.execute(uri: "/iiif/3/missing/info.json", method: .get) { response in
                Self.expectExplained(response, .notFound, ["'missing'"])
            }
            try await client.execute(uri: "/view/missing", method: .get) { response in
                Self.expectExplained(response, .notFound, ["'missing'"])
            }
            try await client.execute(uri: "/dzi/pattern_files/99/0_0.jpg", method: .get) { response in
                Self.expectExplained(response, .notFound, ["levels", "99"])
            }
            try await client.execute(uri: "/dzi/pattern_files/11/99_0.jpg", method: .get) { response in
                Self.expectExplained(response, .notFound, ["99_0"])
            }
            // A bad parameter or path: which, and why.
            try await client.execute(uri: "/iiif/3/pattern/full/max/0/default.gif", method: .get) { response in
                Self.expectExplained(response, .badRequest, ["format 'gif'"])
            }
            try await client.execute(uri: "/iiif/3/pattern/full/max/45/default.jpg", method: .get) { response in
                Self.expectExplained(response, .badRequest, ["rotation '45'"])
            }
            try await client.execute(uri: "/iiif/3/pattern/full/max/0/sepia.jpg", method: .get) { response in
                Self.expectExplained(response, .badRequest, ["quality 'sepia'"])
            }
            try await client.execute(uri: "/iiif/3/pattern/0,0,-5,10/max/0/default.jpg", method: .get) { response in
                Self.expectExplained(response, .badRequest, ["region"])
            }
            try await client.execute(uri: "/iiif/3/pat%zztern/info.json", method: .get) { response in
                Self.expectExplained(response, .badRequest, ["'%'"])
            }
            // A method the server does not answer: 405, naming the method and those it answers.
            for method in [HTTPRequest.Method.post, .put, .delete] {
                try await client.execute(uri: "/iiif/3/pattern/info.json", method: method) { response in
                    Self.expectExplained(response, .methodNotAllowed, [method.rawValue, "GET and HEAD"])
                    #expect(response.headers[.allow] == "GET, HEAD")
                }
            }
            // HEAD: the GET's headers, no body.
            try await client.execute(uri: "/nope", method: .head) { response in
                #expect(response.status == .notFound && response.body.readableBytes == 0)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(response.headers[.contentLength] == "\(direct.body.count)")
            }
            // Bytes that are not HTTP: HummingbirdCore's 400, said why before the connection closes.
            let port = try #require(client.port)
            let answer = try await OwnThread.running {
                try LoopbackSocket.exchange(port, Array("NOT HTTP AT ALL\r\n\u{1}\u{2}\r\n\r\n".utf8))
            }
            let (head, body) = try #require(Self.split(answer), "\(answer)")
            #expect(head.hasPrefix("HTTP/1.1 400"), "\(head)")
            #expect(head.lowercased().contains("content-type: text/plain; charset=utf-8"), "\(head)")
            #expect(body.contains("not a valid HTTP/1.1 request"), "\(body)")
        }
    }

    /// Requests pipelined on one connection, kept tiles (the fast path's) between refusals (the
    /// router's): each answer in the order asked, each refusal explained as its own request's.
    @Test func pipelinedKeptTilesAndRefusalsKeepTheirOrder() async throws {
        let store = try PatternStore()
        let kept = "/dzi/pattern_files/11/1_1.jpg"
        let direct = await store.get(kept)
        #expect(direct.status == 200)
        try await Self.application(store.server).test(.live) { client in
            let port = try #require(client.port)
            let paths = [kept, "/nope", kept, "/dzi/pattern_files/99/0_0.jpg", kept]
            let request = paths.enumerated().map { index, path in
                "GET \(path) HTTP/1.1\r\nHost: localhost\r\n" + (index == paths.count - 1 ? "Connection: close\r\n" : "") + "\r\n"
            }.joined()
            let answer = try await OwnThread.running { try LoopbackSocket.exchangeBytes(port, Array(request.utf8)) }
            // Each answer: its status line, and its body by its Content-Length.
            var rest = answer[...], answers: [(status: String, body: [UInt8])] = []
            let blank = Array("\r\n\r\n".utf8)
            while let end = rest.indices.first(where: { rest[$0...].starts(with: blank) }) {
                let head = String(decoding: rest[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                let body = rest[(end + 4)...].prefix(length)
                answers.append((String(head.prefix(12)), Array(body)))
                rest = rest[body.endIndex...]
            }
            try #require(answers.count == 5, "\(answers.map(\.status))")
            #expect(answers.map(\.status) == ["HTTP/1.1 200", "HTTP/1.1 404", "HTTP/1.1 200", "HTTP/1.1 404", "HTTP/1.1 200"])
            #expect(String(decoding: answers[1].body, as: UTF8.self).contains("No such page: /nope."))
            #expect(String(decoding: answers[3].body, as: UTF8.self).contains("99"))
            #expect([0, 2, 4].allSatisfy { answers[$0].body == direct.body }, "each kept tile whole, in its place")
        }
    }

    /// Too many requests waiting for a render thread: 503, saying to try again, with Retry-After.
    @Test func busyIsExplained() async throws {
        var options = TileServerOptions()
        options.renderThreads = 0  // no render is ever admitted: every one that would wait is refused
        options.maximumQueuedRenders = 0
        let store = try PatternStore(options: options)
        try await Self.application(store.server).test(.live) { client in
            try await client.execute(uri: "/iiif/3/pattern/info.json", method: .get) { response in
                Self.expectExplained(response, .serviceUnavailable, ["try again"])
                #expect(response.headers[.retryAfter] == "1")
            }
        }
    }

    /// The head and body of a raw HTTP answer.
    static func split(_ answer: String) -> (head: String, body: String)? {
        guard let blank = answer.range(of: "\r\n\r\n") else { return nil }
        return (String(answer[..<blank.lowerBound]), String(answer[blank.upperBound...]))
    }
}
