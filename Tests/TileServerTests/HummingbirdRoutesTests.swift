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
