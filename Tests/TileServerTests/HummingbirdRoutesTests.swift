import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TileServer

/// The server's routes mounted on an application's own Hummingbird router, beside its own
/// routes, over real HTTP on loopback.
@Suite struct HummingbirdRoutesTests {
    @Test func routesOnAnApplicationsRouter() async throws {
        let store = try PatternStore()
        let router = Router()
        router.get("/hello") { _, _ in "hello" }
        store.server.addRoutes(to: router, mountPath: "/images")
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await application.test(.live) { client in
            try await client.execute(uri: "/hello", method: .get) { response in
                #expect(String(buffer: response.body) == "hello")
            }
            try await client.execute(uri: "/images/iiif/3/pattern/info.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                let info = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let id = try #require(info["id"] as? String)
                #expect(id.hasPrefix("http://") && id.hasSuffix("/images/iiif/3/pattern"), "\(id)")
            }
            try await client.execute(uri: "/images/iiif/3/pattern", method: .get) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/images/iiif/3/pattern/info.json")
            }
            // HEAD: the headers of the GET, no body.
            try await client.execute(uri: "/images/dzi/pattern_files/11/0_0.jpg", method: .head) { response in
                #expect(response.status == .ok && response.body.readableBytes == 0)
                #expect(response.headers[.contentType] == "image/jpeg" && Int(response.headers[.contentLength] ?? "0")! > 1000)
            }
            try await client.execute(uri: "/images/", method: .get) { response in
                #expect(String(buffer: response.body).contains("view/pattern"))
            }
            try await client.execute(uri: "/images/iiif/3/missing/info.json", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}

/// The fast path: kept images answered on the event loop, before the router.
@Suite struct FastPathTests {
    /// With a router that has none of the server's routes, only what the fast path answers is
    /// found: a kept tile (and its 304, and its HEAD), while one not kept yet is the router's 404.
    @Test func keptImagesAreAnsweredBeforeTheRouter() async throws {
        let store = try PatternStore()
        let kept = "/dzi/pattern_files/11/1_1.jpg"
        let direct = await store.server.respond(to: TileServerRequest(path: kept))
        #expect(direct.status == 200)
        let etag = try #require(direct.header("ETag"))
        let application = Application(
            router: Router(), server: store.server.http1Server(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await application.test(.live) { client in
            try await client.execute(uri: kept, method: .get) { response in
                #expect(response.status == .ok && Array(buffer: response.body) == direct.body)
                #expect(response.headers[.eTag] == etag && response.headers[.accessControlAllowOrigin] == "*")
            }
            try await client.execute(uri: kept + "?cache-buster=1", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: kept, method: .head) { response in
                #expect(
                    response.status == .ok && response.body.readableBytes == 0 && response.headers[.contentLength] == "\(direct.body.count)"
                )
            }
            try await client.execute(uri: kept, method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
            }
            try await client.execute(uri: "/dzi/pattern_files/11/2_2.jpg", method: .get) { response in
                #expect(response.status == .notFound, "not kept: the (empty) router's answer")
            }
        }
    }
}
