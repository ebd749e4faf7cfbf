import FICCore
import FICTestSupport
import Foundation
import Testing
@testable import ImageLoader

/// A loader against the fault server storing originals under `dir`; with `clock`, its wall clock
/// is the test's to move.
func faultLoader(_ dir: TemporaryDirectory, clock: LockedBox<Date>? = nil, _ configure: (inout LoaderConfiguration) -> Void = { _ in })
    throws -> (OriginalsLoader, String)
{
    var c = testLoaderConfiguration { $0.failureBackoff = .zero }
    configure(&c)
    let folder = dir.child("originals")
    var now: @Sendable () -> Date = { Date() }
    if let clock { now = { clock.withLockedValue { $0 } } }
    return (OriginalsLoader(configuration: c, originals: try OriginalsCache(directory: folder, maximumBytes: 64 << 20), now: now), folder)
}

/// The error `body` throws, as an ``ImageCacheError``.
func loaderError(_ body: () async throws -> Void) async -> ImageCacheError? {
    do {
        try await body()
        return nil
    } catch let e as ImageCacheError {
        return e
    } catch {
        Issue.record("not an ImageCacheError: \(error)")
        return nil
    }
}

/// Faults of the network, each giving a clear error, losing nothing stored, leaving no partial file.
@Suite(.serialized) struct HTTPFaultTests {
    @Test func aDownloadIsStoredWhenCompleteAndServedFromDiskAfterwards() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir)
        let url = server.url("/bytes/50000")
        #expect(same(try await loader.data(for: url), FaultServer.body(50000)))
        let again = try await loader.download(url)
        #expect(again.origin == .originalsCache)
        #expect(same(try await again.chunks.collect(), FaultServer.body(50000)))
        #expect(server.requests("/bytes/50000") == 1)
        #expect(loader.statistics.bytesDownloaded == 50000)
        #expect(entryFiles(folder).count == 1)
        try await loader.shutdown()
        await server.stop()
    }

    /// Stores a good entry, runs `fault`, and checks that the entry is still served and that the
    /// fault left nothing in the folder.
    func expectNothingLost(_ loader: OriginalsLoader, _ folder: String, _ server: FaultServer, fault: () async throws -> Void) async throws
    {
        let good = server.url("/bytes/1234")
        _ = try await loader.data(for: good)
        let before = filesIn(folder)
        try await fault()
        #expect(filesIn(folder) == before, "no partial file, nothing lost")
        #expect(same(try await loader.data(for: good), FaultServer.body(1234)))
        #expect(server.requests("/bytes/1234") == 1, "the stored entry is still served")
    }

    @Test func aConnectionResetMidBodyFailsClearly() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir)
        let url = server.url("/reset/400000")
        try await expectNothingLost(loader, folder, server) {
            let e = await loaderError { _ = try await loader.data(for: url) }
            #expect(e?.code == .truncated || e?.code == .network)
            #expect(e?.path == url.absoluteString)
        }
        try await loader.shutdown()
        await server.stop()
    }

    /// The body stops for good after a quarter: only a timeout can end the download, and the
    /// message says which (the idle one: "stalled"; the total one says "took longer than"). A
    /// download that never ended would meet the time limit.
    @Test(.timeLimit(.minutes(2)))
    func aStalledBodyTimesOut() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir) { $0.idleTimeout = .seconds(1) }
        try await expectNothingLost(loader, folder, server) {
            let e = await loaderError { _ = try await loader.data(for: server.url("/stall/100000")) }
            #expect(e?.code == .timedOut)
            #expect(e?.message.contains("stalled") == true, "the idle timeout ended it: \(e?.message ?? "")")
        }
        try await loader.shutdown()
        await server.stop()
    }

    @Test func aBodyShorterThanItsLengthIsTruncated() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir)
        try await expectNothingLost(loader, folder, server) {
            let e = await loaderError { _ = try await loader.data(for: server.url("/short/100000")) }
            #expect(e?.code == .truncated)
            #expect(e?.message.contains("of the 100000 bytes") == true)
        }
        try await loader.shutdown()
        await server.stop()
    }

    @Test func aBodyEndedByClosingTheConnectionIsComplete() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir)
        #expect(same(try await loader.data(for: server.url("/nolength/30000")), FaultServer.body(30000)))
        #expect(entryFiles(folder).count == 1)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func httpErrorsCarryStatusAndURLAndAreNotRetriedDuringTheBackOff() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir) { $0.failureBackoff = .seconds(30) }
        let missing = server.url("/status/404")
        try await expectNothingLost(loader, folder, server) {
            let e = await loaderError { _ = try await loader.data(for: missing) }
            #expect(e?.code == .httpStatus)
            #expect(e?.message.contains("404") == true)
            #expect(e?.path == missing.absoluteString)
            let again = await loaderError { _ = try await loader.data(for: missing) }
            #expect(again?.code == .recentlyFailed)
            #expect(again?.message.contains("failed once recently and is not tried again for") == true)
            #expect((again?.underlying as? ImageCacheError)?.code == .httpStatus)
            #expect(server.requests("/status/404") == 1, "a broken link is not fetched again during its back-off")
            let failing = await loaderError { _ = try await loader.data(for: server.url("/status/500")) }
            #expect(failing?.code == .httpStatus && failing?.message.contains("500") == true)
        }
        loader.forgetFailures()
        _ = await loaderError { _ = try await loader.data(for: missing) }
        #expect(server.requests("/status/404") == 2)
        #expect(loader.statistics.refusedWhileBackingOff == 1)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func redirectsAreFollowedUpToTheLimitAndLoopsAreRefused() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir) { $0.maximumRedirects = 5 }
        #expect(same(try await loader.data(for: server.url("/hops/3")), FaultServer.body(100)))
        try await expectNothingLost(loader, folder, server) {
            #expect(await loaderError { _ = try await loader.data(for: server.url("/hops/7")) }?.code == .tooManyRedirects)
            #expect(await loaderError { _ = try await loader.data(for: server.url("/loop")) }?.code == .tooManyRedirects)
        }
        try await loader.shutdown()
        await server.stop()
    }

    @Test func aBodyOverTheLimitIsRefusedBeforeItIsRead() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir) { $0.maximumBodyBytes = 1 << 20 }
        try await expectNothingLost(loader, folder, server) {
            let before = loader.statistics.bytesDownloaded
            let e = await loaderError { _ = try await loader.data(for: server.url("/huge/\(2 << 30)")) }
            #expect(e?.code == .bodyTooLarge)
            #expect(loader.statistics.bytesDownloaded == before, "refused from its announced length: no byte of the body was taken")
            // Without a length, the count stops it.
            let counted = await loaderError { _ = try await loader.data(for: server.url("/nolength/\(3 << 20)")) }
            #expect(counted?.code == .bodyTooLarge)
        }
        #expect(loader.statistics.bytesDownloaded < 3 << 20)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func twoGigabytesStreamThroughWithoutBeingBuffered() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let size = Int(ProcessInfo.processInfo.environment["FIC_HUGE_BODY_BYTES"] ?? "") ?? 2 << 30
        let (loader, folder) = try faultLoader(dir) {
            $0.maximumBodyBytes = 4 << 30; $0.totalTimeout = .seconds(600)
        }
        let download = try await loader.download(server.url("/huge/\(size)"))
        #expect(download.expectedLength == size)
        let before = residentBytes()
        var total = 0
        var peak = 0
        for try await chunk in download.chunks {
            total += chunk.count
            if total % (64 << 20) < chunk.count { peak = max(peak, residentBytes() - before) }
        }
        #expect(total == size)
        #expect(peak < 256 << 20, "memory stays bounded: grew \(peak >> 20) MiB while streaming \(size >> 20) MiB")
        #expect(entryFiles(folder).isEmpty, "larger than the originals cache: not stored")
        #expect(filesIn(folder) == ["journal"])
        try await loader.shutdown()
        await server.stop()
    }

    /// A byte every 100 ms never trips the idle timeout, and 1000 of them take 100 s: the
    /// message names the total timeout that ended the download, the one configured here (the
    /// loader's own is a minute); a download let run to its end would meet the time limit.
    @Test(.timeLimit(.minutes(10)))
    func aSlowLorisServerIsCutOffByTheTotalTimeout() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir) { $0.totalTimeout = .seconds(2) }
        try await expectNothingLost(loader, folder, server) {
            let e = await loaderError { _ = try await loader.data(for: server.url("/loris/1000")) }
            #expect(e?.code == .timedOut)
            #expect(
                e?.message.contains("took longer than \(Duration.seconds(2)) (the server sends too slowly)") == true, "\(e?.message ?? "")")
        }
        try await loader.shutdown()
        await server.stop()
    }

    @Test func connectionsPerHostAreLimited() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, _) = try faultLoader(dir) { $0.connectionsPerHost = 3 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<12 {
                group.addTask { _ = try await loader.data(for: server.url("/bytes/\(300_000 + i)")) }
            }
            try await group.waitForAll()
        }
        #expect(server.stats.withLockedValue { $0.maximumOpen } <= 3)
        #expect(loader.network.hosts.active("http://127.0.0.1:\(server.port)") == 0)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func noStoreIsHonoured() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir)
        let url = server.url("/bytes/2000?nostore=1")
        #expect(same(try await loader.data(for: url), FaultServer.body(2000)))
        #expect(entryFiles(folder).isEmpty)
        _ = try await loader.data(for: url)
        #expect(server.requests("/bytes/2000") == 2)
        try await loader.shutdown()
        await server.stop()
    }

    @Test(arguments: ["etag=v1", "lastmodified=1"])
    func aStaleEntryIsRevalidatedAndKept(validator: String) async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        // The loader's wall clock, moved by the test: a second of max-age passes when it says so.
        let clock = LockedBox(Date())
        let (loader, folder) = try faultLoader(dir, clock: clock)
        let url = server.url("/bytes/5000?\(validator)&maxage=1")
        _ = try await loader.data(for: url)
        _ = try await loader.data(for: url)
        #expect(server.requests("/bytes/5000") == 1, "fresh: no request")
        clock.withLockedValue { $0 += 2 }
        let download = try await loader.download(url)
        #expect(download.origin == .originalsCache)
        #expect(same(try await download.chunks.collect(), FaultServer.body(5000)))
        #expect(server.requests("/bytes/5000") == 2)
        #expect(server.stats.withLockedValue { $0.conditional } == ["/bytes/5000"])
        #expect(loader.statistics.notModified == 1 && loader.statistics.bytesDownloaded == 5000)
        #expect(loader.originals?.statistics.revalidations == 1)
        _ = try await loader.data(for: url)
        #expect(server.requests("/bytes/5000") == 2, "fresh again after the server confirmed it")
        #expect(entryFiles(folder).count == 1)
        try await loader.shutdown()
        await server.stop()
    }

    @Test func aCancelledDownloadStoresNothingAndIsNotHeldAgainstTheURL() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let (loader, folder) = try faultLoader(dir) {
            $0.failureBackoff = .seconds(30); $0.idleTimeout = .seconds(30)
        }
        let url = server.url("/stall/100000")
        let task = Task { try await loader.data(for: url) }
        // Cancelled mid-body: once the quarter the server sends has come in.
        try await waitUntil("the body has started") { loader.statistics.bytesDownloaded == 25_000 }
        task.cancel()
        let e = await loaderError { _ = try await task.value }
        #expect(e?.code == .cancelled)
        #expect(filesIn(folder) == ["journal"])
        let next = Task { try await loader.data(for: url) }
        try await waitUntil("a new request is made at once") { server.requests("/stall/100000") == 2 }
        next.cancel()
        _ = await next.result
        try await loader.shutdown()
        await server.stop()
    }

    @Test func refusedConnectionsAndOtherSchemesFailAtOnce() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let closed = server.url("/bytes/10")
        await server.stop()
        // Refused, not left to the connect timeout (which fails with .timedOut).
        let (loader, _) = try faultLoader(dir)
        #expect(await loaderError { _ = try await loader.data(for: closed) }?.code == .network)
        #expect(await loaderError { _ = try await loader.data(for: URL(string: "ftp://example.com/a.jpg")!) }?.code == .unsupportedURL)
        try await loader.shutdown()
    }

    @Test func fileURLsAreReadWithoutTheOriginalsCache() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let (loader, folder) = try faultLoader(dir)
        let file = testFile("photos/hubble.jpg")
        let download = try await loader.download(file)
        #expect(download.origin == .file && download.expectedLength == 527_940)
        var chunks = 0
        var bytes: [UInt8] = []
        for try await chunk in download.chunks {
            chunks += 1
            bytes += chunk
        }
        #expect(chunks > 1, "read in chunks")
        #expect(bytes == [UInt8](try Data(contentsOf: file)))
        #expect(entryFiles(folder).isEmpty)
        let e = await loaderError { _ = try await loader.data(for: URL(fileURLWithPath: "/nonexistent/x.jpg")) }
        #expect(e?.code == .sourceUnavailable && e?.path == "/nonexistent/x.jpg")
        // A FIFO would block a reader forever: refused at once.
        let fifo = dir.child("fifo.jpg")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(await loaderError { _ = try await loader.data(for: URL(fileURLWithPath: fifo)) }?.code == .sourceUnavailable)
        try await loader.shutdown()
    }
}

/// The process's resident bytes now (`/proc/self/statm`).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}
