import FICCore
import FICTestSupport
import Foundation
import Testing
@testable import ImageLoader

/// The body as a stream of chunks: from the network (stored as it arrives), from the originals
/// cache (checked at the end), and what happens when the reader stops early.
@Suite(.serialized) struct StreamTests {
    @Test func theBodyStreamsFromTheNetworkAndThenFromTheOriginalsCache() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir)
        let size = 6 << 20
        let url = server.url("/bytes/\(size)")
        let first = try await loader.download(url)
        #expect(first.origin == .network && first.expectedLength == size)
        var chunks = 0
        var bytes: [UInt8] = []
        for try await chunk in first.chunks {
            chunks += 1
            bytes += chunk
            if chunks == 1 { #expect(entryFiles(folder).isEmpty, "nothing is published before the end") }
        }
        #expect(chunks > 10)
        #expect(same(bytes, FaultServer.body(size)))
        #expect(entryFiles(folder).count == 1)
        let second = try await loader.download(url)
        #expect(second.origin == .originalsCache)
        var storedChunks = 0
        var stored: [UInt8] = []
        for try await chunk in second.chunks {
            storedChunks += 1
            stored += chunk
        }
        #expect(storedChunks > 1, "a large stored body is read in chunks too")
        #expect(same(stored, bytes))
        #expect(server.requests("/bytes/\(size)") == 1)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func aStoredBodyThatFailsItsChecksumThrowsAtTheEndAndIsRemoved() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir)
        let url = server.url("/bytes/\(5 << 20)")
        _ = try await loader.data(for: url)
        let path = folder + "/" + OriginalsCache.entryName(for: url)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 3 << 20)
        try handle.write(contentsOf: Data([0x55, 0xAA, 0x55]))
        try handle.close()
        let download = try await loader.download(url)
        #expect(download.origin == .originalsCache)
        let e = await loaderError { for try await _ in download.chunks {} }
        #expect(e?.code == .corruptData)
        try await waitUntil("the damaged entry is removed") { entryFiles(folder).isEmpty }
        #expect(same(try await loader.data(for: url), FaultServer.body(5 << 20)), "fetched again")
        #expect(server.requests("/bytes/\(5 << 20)") == 2)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func stoppingEarlyCancelsTheDownloadAndStoresNothing() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir) { $0.maximumBodyBytes = 2 << 30 }
        do {
            let download = try await loader.download(server.url("/huge/\(1 << 30)"))
            for try await _ in download.chunks { break }
        }
        try await waitUntil("the connection permit comes back") { loader.network.hosts.active("http://127.0.0.1:\(server.port)") == 0 }
        try await waitUntil("the server sees the connection close") { server.stats.withLockedValue { $0.open } == 0 }
        #expect(filesIn(folder) == ["journal"])
        #expect(loader.statistics.bytesDownloaded < 1 << 30)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func theChunksCanBeReadOnlyOnce() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let (loader, _) = try faultLoader(dir)
        let download = try await loader.download(testFile("photos/coffee.jpg"))
        _ = try await download.chunks.collect()
        let e = await loaderError { _ = try await download.chunks.collect() }
        #expect(e?.code == .invalidArgument)
        try await loader.shutdown()
    }
}
