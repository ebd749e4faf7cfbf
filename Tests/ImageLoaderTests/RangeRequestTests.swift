import FICCore
import Foundation
import Testing
@testable import ImageLoader

/// Range requests against a server that answers them right, and one that lies: a range is its
/// exact bytes and the file's size, or an error that names what the server did; a URL that failed
/// is refused while the loader backs off, without a request (never a storm).
@Suite struct RangeRequestTests {
    @Test func aRangeIsItsBytesAndTheFilesSize() async throws {
        let server = try await FaultServer.start()
        let loader = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let answer = try await loader.bytes(of: server.url("/range/100000"), offset: 70_000, count: 1_000)
        #expect(answer.totalSize == 100_000 && answer.bytes == Array(FaultServer.body(71_000)[70_000...]))
        // Past the end: the part the file has.
        let tail = try await loader.bytes(of: server.url("/range/100000"), offset: 99_500, count: 1_000)
        #expect(tail.bytes.count == 500 && tail.totalSize == 100_000)
        #expect(loader.statistics.downloads == 2 && loader.statistics.bytesDownloaded == 1_500)
        await server.stop()
    }

    @Test(arguments: ["start", "length", "short"])
    func aServerThatLiesIsRefusedAndBackedOff(_ lie: String) async throws {
        let server = try await FaultServer.start()
        let loader = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let url = server.url("/range/100000?lie=\(lie)")
        await #expect(throws: ImageCacheError.self) { _ = try await loader.bytes(of: url, offset: 4_096, count: 8_192) }
        #expect(server.requests("/range/100000") == 1)
        // Asked again at once: refused by the back-off, no second request.
        await #expect {
            _ = try await loader.bytes(of: url, offset: 4_096, count: 8_192)
        } throws: { error in
            (error as? ImageCacheError)?.code == .recentlyFailed
        }
        #expect(server.requests("/range/100000") == 1 && loader.statistics.refusedWhileBackingOff == 1)
        await server.stop()
    }
}
