import FICHarness
import FICTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageCodec
import Testing

/// The package's pyramidal TIFFs served by iipsrv (Debian's `iipimage-server`, the IIIF server
/// of many museums and libraries), behind nginx as FastCGI: it finds every level, and its tiles
/// are the package's own.
@Suite("iipsrv serves fic's pyramidal TIFFs", .serialized)
struct IIPServerTests {
    static let iipsrv = "/usr/lib/iipimage-server/iipsrv.fcgi"
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: iipsrv) }

    /// The bytes and status of a GET.
    private func get(_ url: String) async throws -> (Int, Data) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A tile as packed BGRA rows: the top-left `width × height` pixels of `bytes` decoded.
    private func pixels(_ bytes: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let image = try ImageDecoder.decode(bytes)
        var out: [UInt8] = []
        image.withUnsafeBytes { raw in
            for y in 0..<min(height, image.height) {
                out += raw[(y * image.bytesPerRow)..<(y * image.bytesPerRow + min(width, image.width) * 4)]
            }
        }
        return out
    }

    /// The PSNR of the luma of two equally sized BGRA pixel runs, dB.
    private func lumaPSNR(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var squared = 0.0
        for i in stride(from: 0, to: min(a.count, b.count), by: 4) {
            let d =
                0.114 * (Double(a[i]) - Double(b[i])) + 0.587 * (Double(a[i + 1]) - Double(b[i + 1])) + 0.299
                * (Double(a[i + 2]) - Double(b[i + 2]))
            squared += d * d
        }
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / (squared / Double(a.count / 4)))
    }

    @Test(
        "iipsrv reads the levels of a TIFF fic tile wrote, and its IIIF tiles of two levels are fic's",
        .enabled(
            if: installed || TestWebServer.isRequired, "iipsrv is not installed (Debian: iipimage-server; scripts/install-deps --test)"))
    func iipsrvServesOurTIFF() async throws {
        try #require(Self.installed, "iipsrv is required here (Debian: iipimage-server; scripts/install-deps --test installs it)")
        let folder = try TemporaryFolder()
        let store = folder.path("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let tiff = store + "/retina.tif"
        let built = try Fic.run(["tile", Fic.testdata + "/photos/retina.jpg", "--out", tiff])
        #expect(built.status == 0, "\(built.stderr)")

        // iipsrv as a FastCGI server on a port of its own, files under the store only, its
        // JPEG answers at quality 100 (it decodes the stored tile and encodes it again).
        var server: ChildProcess?
        var nginx: LocalNginx?
        defer {
            nginx?.stop()
            server?.kill()
        }
        let port = 30000 + Int(getpid() % 5000) * 2
        server = try ChildProcess.start(
            Self.iipsrv, ["--bind", "127.0.0.1:\(port)"],
            extraEnvironment: ["FILESYSTEM_PREFIX": store + "/", "JPEG_QUALITY": "100", "VERBOSITY": "0", "MAX_CVT": "5000"],
            standardError: folder.path("iipsrv.err"))
        nginx = try LocalNginx(root: store, prefix: folder.path("nginx"), fastCGI: ["/iipsrv": [port]])
        let base = "http://127.0.0.1:\(try #require(nginx).port)/iipsrv?IIIF=retina.tif"

        // Its info.json, once it answers (it starts in well under a second; a minute at most).
        var info: [String: Any]?
        let deadline = ContinuousClock.now + .seconds(60)
        while info == nil, ContinuousClock.now < deadline {
            if let (status, body) = try? await get(base + "/info.json"), status == 200 {
                info = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let description = try #require(
            info,
            "iipsrv never answered: \(String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: folder.path("iipsrv.err")))) ?? Data(), as: UTF8.self))"
        )
        #expect(description["width"] as? Int == 1411 && description["height"] as? Int == 1411)
        // The levels it found: 1411 halves to 706, 353 and 177 (four levels, three reductions).
        let tiles = try #require((description["tiles"] as? [[String: Any]])?.first)
        #expect(tiles["width"] as? Int == 256)
        #expect((tiles["scaleFactors"] as? [Int]) == [1, 2, 4, 8], "\(tiles)")

        // Full resolution tile (1, 1), and level 1's tile (1, 1) (the region 512,512,512,512 at half size).
        for (level, region) in [(0, "256,256,256,256"), (1, "512,512,512,512")] {
            let (status, body) = try await get(base + "/\(region)/256,/0/default.jpg")
            #expect(status == 200)
            let theirs = try pixels(Array(body), width: 256, height: 256)
            let get = try Fic.run([
                "tile-get", tiff, "--level", "\(level)", "--column", "1", "--row", "1", "--out", folder.path("ours-\(level).png")
            ])
            #expect(get.status == 0, "\(get.stderr)")
            let ours = try pixels(Array(Data(contentsOf: URL(fileURLWithPath: folder.path("ours-\(level).png")))), width: 256, height: 256)
            #expect(theirs.count == ours.count)
            let psnr = lumaPSNR(theirs, ours)
            #expect(psnr >= 40, "level \(level): iipsrv's tile is \(psnr) dB from ours")
        }
    }
}
