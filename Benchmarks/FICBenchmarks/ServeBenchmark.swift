import FICHarness
import Foundation
import Glibc

/// Figures of ``ServeBenchmark``: `wrk` loads, 64 connections, on random tiles of an 18000²
/// pyramid, against `fic serve` and against nginx serving `vips dzsave`'s static tiles.
public struct ServeBenchmarkResult: Sendable, Codable {
    /// One `wrk` run.
    public struct Load: Sendable, Codable {
        /// Requests answered per second.
        public var requestsPerSecond: Double
        /// Median latency, ms.
        public var p50Ms: Double
        /// 99th-percentile latency, ms.
        public var p99Ms: Double
        /// Answers that were not 2xx or 3xx, plus socket errors.
        public var errors: Int
    }

    /// Side of the square image.
    public var side: Int
    /// Distinct tile URLs the load cycles through (random tiles of the three finest levels).
    public var tiles: Int
    /// Connections of every load.
    public var connections: Int
    /// nginx serving the same tiles as static files written by `vips dzsave` (nil without nginx or
    /// vips); best of the rounds, which alternate with fic serve's.
    public var nginx: Load?
    /// `fic serve`, Deep Zoom URLs, warm (its encoded answers kept), from a pyramidal TIFF of raw
    /// tiles (`--compression none`: every tile read without decoding); best of the rounds.
    public var serveDeepZoom: Load
    /// `fic serve`, the same tiles through IIIF URLs (`x,y,w,h/w,h/0/default.jpg`), warm.
    public var serveIIIF: Load
    /// `fic serve --cache-mb 0`, Deep Zoom URLs, 2 connections (one per core: a tile's own cost,
    /// not a queue's): every tile read from the raw TIFF and encoded on request.
    public var serveCold: Load
    /// The same cold load on the same image as a pyramidal TIFF of 256 × 256 JPEG tiles written by
    /// `vips tiffsave --pyramid` (quality 85) beside the pyramid: its whole tiles answered as
    /// stored, edge tiles encoded. Nil without vips.
    public var serveColdTIFF: Load?
    /// `fic serve`, Deep Zoom URLs, warm, from the pyramidal TIFF `fic tile --out X.tif` wrote of
    /// the same image (JPEG tiles, quality 95); best of the rounds.
    public var serveDeepZoomTIFF: Load?
    /// iipsrv (Debian's `iipimage-server`, two FastCGI processes behind nginx) serving the same
    /// Deep Zoom tiles from that TIFF (nil when it is not installed); best of the rounds.
    public var iipsrv: Load?
    /// serveDeepZoom requests/s over nginx's (target ≥ 0.7).
    public var deepZoomOverNginx: Double?
    /// serveDeepZoomTIFF requests/s over nginx's (target ≥ 1.0).
    public var deepZoomTIFFOverNginx: Double? {
        guard let t = serveDeepZoomTIFF, let n = nginx else { return nil }
        return t.requestsPerSecond / n.requestsPerSecond
    }
    /// serveDeepZoomTIFF requests/s over iipsrv's (target ≥ 10).
    public var deepZoomTIFFOverIIPServer: Double? {
        guard let t = serveDeepZoomTIFF, let i = iipsrv else { return nil }
        return t.requestsPerSecond / i.requestsPerSecond
    }
    /// Notes on the setup.
    public var notes: [String]
}

/// `fic-bench serve`: random tiles of an 18000² pyramid under `wrk -c 64`, `fic serve` against
/// nginx serving the same tiles as static files made by `vips dzsave`.
public enum ServeBenchmark {
    static let connections = 64
    static let seconds = 6
    static let rounds = 3

    /// Runs the benchmark with the `fic` at `fic` (the pyramid is built and served by child processes).
    public static func run(testdata: String, workDirectory: String, fic: String, log: (String) -> Void) throws -> ServeBenchmarkResult {
        guard let wrk = Executables.find("wrk") else { throw BenchmarkError("wrk is not installed (scripts/install-deps installs it)") }
        let side = TilesBenchmark.side
        let baseline = workDirectory + "/tiles-\(side)-baseline.jpg"
        if !FileManager.default.fileExists(atPath: baseline) {
            try TilesBenchmark.makeJPEGs(
                photo: testdata + "/hubble.jpg", fallback: testdata + "/photos/hubble.jpg", baseline: baseline,
                progressive: workDirectory + "/tiles-\(side)-progressive.jpg", workDirectory: workDirectory, log: log)
        }
        let folder = workDirectory + "/serve-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder + "/store", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        log("building the pyramid of raw tiles (fic tile --out big.tif --compression none) …")
        try BenchmarkProcess.run(fic, ["tile", baseline, "--out", folder + "/store/big.tif", "--compression", "none"])
        log("the same as a pyramidal TIFF (fic tile --out ours.tif) …")
        try BenchmarkProcess.run(fic, ["tile", baseline, "--out", folder + "/store/ours.tif"])

        // Random tiles of the three finest Deep Zoom levels (most of a viewer's requests).
        let top = Int((log2(Double(side))).rounded(.up))
        var random = SplitMix64(seed: 0x5345_5256)
        var cells: [(level: Int, column: Int, row: Int)] = []
        for _ in 0..<4000 {
            let level = top - Int(random.next() % 3)
            let cellsAcross = (((side + (1 << (top - level)) - 1) >> (top - level)) + 255) / 256
            cells.append((level, Int(random.next() % UInt64(cellsAcross)), Int(random.next() % UInt64(cellsAcross))))
        }
        let dziPaths = cells.map { "/dzi/big_files/\($0.level)/\($0.column)_\($0.row).jpg" }
        let tiffPaths = cells.map { "/dzi/ours_files/\($0.level)/\($0.column)_\($0.row).jpg" }
        let iipsrvPaths = cells.map { "/iipsrv?DeepZoom=ours.tif_files/\($0.level)/\($0.column)_\($0.row).jpg" }
        let staticPaths = cells.map { "/image_files/\($0.level)/\($0.column)_\($0.row).jpg" }
        let iiifPaths = cells.map { cell -> String in
            let scale = 1 << (top - cell.level)
            let x = cell.column * 256 * scale, y = cell.row * 256 * scale
            let w = min(256 * scale, side - x), h = min(256 * scale, side - y)
            return "/iiif/3/big/\(x),\(y),\(w),\(h)/\((w + scale - 1) / scale),\((h + scale - 1) / scale)/0/default.jpg"
        }
        var notes = [
            "wrk -t 2 -c \(connections) on the same 2-core machine as the servers; \(cells.count) random tiles of the three finest levels of an \(side)² image; every URL list warmed up for \(seconds / 2) s first (both servers then read from the page cache, and fic serve from its kept answers); nginx and fic serve measured in \(rounds) alternating rounds of \(seconds) s, the best of each kept (the machine is a shared VM whose speed moves between rounds)."
        ]

        /// A URL list's wrk script, and a warm-up on it.
        func prepare(_ base: String, _ paths: [String], _ name: String, connections: Int = connections) throws -> String {
            let script = folder + "/\(name).lua"
            try luaScript(paths).write(toFile: script, atomically: true, encoding: .utf8)
            // The files written just before (pyramid, static tree) on disk first: their write-back
            // must not land in a timed run.
            sync()
            _ = try wrkRun(wrk, base, script: script, seconds: seconds / 2, connections: connections)
            return script
        }
        func report(_ label: String, _ result: ServeBenchmarkResult.Load) {
            log(
                "  \(label): \(BenchKit.fixed(result.requestsPerSecond, 0)) requests/s, p50 \(BenchKit.fixed(result.p50Ms, 2)) ms, p99 \(BenchKit.fixed(result.p99Ms, 2)) ms, \(result.errors) errors"
            )
        }
        func best(_ a: ServeBenchmarkResult.Load?, _ b: ServeBenchmarkResult.Load) -> ServeBenchmarkResult.Load {
            guard let a, a.requestsPerSecond >= b.requestsPerSecond else { return b }
            return a
        }

        var nginx: LocalNginx?
        let vips = Executables.find("vips")
        if let vips {
            log("the same image as a pyramidal TIFF (vips tiffsave, 256-pixel JPEG tiles, quality 85) …")
            try BenchmarkProcess.run(
                vips,
                [
                    "tiffsave", baseline, folder + "/store/scan.tif", "--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid",
                    "--compression", "jpeg", "--Q", "85"
                ])
            log("static tiles (vips dzsave, 256 pixels, no overlap, quality 85) behind nginx …")
            try BenchmarkProcess.run(
                vips, ["dzsave", baseline, folder + "/static/image", "--tile-size", "256", "--overlap", "0", "--suffix", ".jpg[Q=85]"])
            do {
                nginx = try LocalNginx(root: folder + "/static", prefix: folder + "/nginx")
            } catch let error as HarnessError {
                notes.append("no nginx baseline: \(error)")
            }
        } else {
            notes.append("vips not found (Debian: libvips-tools): no nginx baseline")
        }
        defer { nginx?.stop() }
        let iipsrv = try IIPServers(store: folder + "/store", prefix: folder + "/iipsrv", log: log)
        defer { iipsrv?.stop() }
        if iipsrv == nil { notes.append("iipsrv not found (Debian: iipimage-server): no iipsrv baseline") }

        log("fic serve …")
        var nginxLoad: ServeBenchmarkResult.Load?, warm: ServeBenchmarkResult.Load?, iiif: ServeBenchmarkResult.Load?
        var warmTIFF: ServeBenchmarkResult.Load?, iipLoad: ServeBenchmarkResult.Load?
        do {
            let server = try ServedStore(fic: fic, store: folder + "/store", arguments: ["--cache-mb", "512"])
            defer { server.stop() }
            let staticScript = try nginx.map { try prepare("http://127.0.0.1:\($0.port)", staticPaths, "static") }
            let dziScript = try prepare(server.base, dziPaths, "dzi")
            let iiifScript = try prepare(server.base, iiifPaths, "iiif")
            let tiffScript = try prepare(server.base, tiffPaths, "tiff")
            let iipScript = try iipsrv.map { try prepare($0.base, iipsrvPaths, "iipsrv") }
            for round in 1...rounds {
                if let nginx, let staticScript {
                    let result = try wrkRun(
                        wrk, "http://127.0.0.1:\(nginx.port)", script: staticScript, seconds: seconds, connections: connections)
                    report("round \(round), nginx", result)
                    nginxLoad = best(nginxLoad, result)
                }
                let dzi = try wrkRun(wrk, server.base, script: dziScript, seconds: seconds, connections: connections)
                report("round \(round), fic serve, Deep Zoom", dzi)
                warm = best(warm, dzi)
                let i3 = try wrkRun(wrk, server.base, script: iiifScript, seconds: seconds, connections: connections)
                report("round \(round), fic serve, IIIF", i3)
                iiif = best(iiif, i3)
                let fromTIFF = try wrkRun(wrk, server.base, script: tiffScript, seconds: seconds, connections: connections)
                report("round \(round), fic serve, Deep Zoom from the pyramidal TIFF", fromTIFF)
                warmTIFF = best(warmTIFF, fromTIFF)
                if let iipsrv, let iipScript {
                    let result = try wrkRun(wrk, iipsrv.base, script: iipScript, seconds: seconds, connections: connections)
                    report("round \(round), iipsrv (2 processes behind nginx), Deep Zoom from the same TIFF", result)
                    iipLoad = best(iipLoad, result)
                }
            }
        }
        let cold: ServeBenchmarkResult.Load
        do {
            let server = try ServedStore(fic: fic, store: folder + "/store", arguments: ["--cache-mb", "0"])
            defer { server.stop() }
            let script = try prepare(server.base, dziPaths, "cold", connections: 2)
            cold = try wrkRun(wrk, server.base, script: script, seconds: seconds, connections: 2)
            report("fic serve --cache-mb 0, 2 connections (every tile encoded)", cold)
        }
        var coldTIFF: ServeBenchmarkResult.Load?
        if vips != nil {
            let server = try ServedStore(fic: fic, store: folder + "/store", arguments: ["--cache-mb", "0"])
            defer { server.stop() }
            let paths = dziPaths.map { $0.replacingOccurrences(of: "/dzi/big_files/", with: "/dzi/scan_files/") }
            let script = try prepare(server.base, paths, "cold-tiff", connections: 2)
            coldTIFF = try wrkRun(wrk, server.base, script: script, seconds: seconds, connections: 2)
            report("fic serve --cache-mb 0 from the pyramidal TIFF, 2 connections (stored tiles as they are)", coldTIFF!)
        }
        guard let warm, let iiif else { throw BenchmarkError("no round ran") }
        return ServeBenchmarkResult(
            side: side, tiles: cells.count, connections: connections, nginx: nginxLoad, serveDeepZoom: warm, serveIIIF: iiif,
            serveCold: cold, serveColdTIFF: coldTIFF, serveDeepZoomTIFF: warmTIFF, iipsrv: iipLoad,
            deepZoomOverNginx: nginxLoad.map { warm.requestsPerSecond / $0.requestsPerSecond },
            notes: notes)
    }

    /// A wrk script requesting `paths` in turn, each thread from its own starting point.
    static func luaScript(_ paths: [String]) -> String {
        """
        local paths = {\(paths.map { "\"\($0)\"" }.joined(separator: ","))}
        local i = 0
        function init(args) i = math.random(#paths) end
        function request()
          i = i % #paths + 1
          return wrk.format("GET", paths[i])
        end

        """
    }

    /// Runs wrk and reads its requests/s, median and 99th-percentile latencies and errors.
    static func wrkRun(_ wrk: String, _ base: String, script: String, seconds: Int, connections: Int) throws -> ServeBenchmarkResult.Load {
        // wrk needs a connection per thread at least.
        let text = try BenchmarkProcess.output(
            of: wrk, ["-t", "2", "-c", "\(connections)", "-d", "\(seconds)s", "--latency", "-s", script, base])
        func field(_ prefix: String) -> String? {
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix(prefix) }?
                .dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        }
        guard let rate = field("Requests/sec:").flatMap(Double.init), let p50 = field("50%").flatMap(milliseconds),
            let p99 = field("99%").flatMap(milliseconds)
        else {
            throw BenchmarkError("wrk printed no figures: \(text)")
        }
        let non2xx = field("Non-2xx or 3xx responses:").flatMap { Int($0) } ?? 0
        let socketErrors =
            field("Socket errors:").map {
                $0.split(separator: ",").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
            } ?? 0
        return .init(requestsPerSecond: rate, p50Ms: p50, p99Ms: p99, errors: non2xx + socketErrors)
    }

    /// wrk's latency (`812.00us`, `1.20ms`, `1.01s`) in ms.
    static func milliseconds(_ text: String) -> Double? {
        for (unit, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * factor }
        }
        return nil
    }
}

/// `fic serve` in a child process on a free port.
private final class ServedStore {
    let process: BenchmarkProcess
    let base: String
    /// Its standard output, open while it runs: a server writing to a closed pipe would be killed.
    private let output: LinePipe

    init(fic: String, store: String, arguments: [String]) throws {
        output = try LinePipe()
        process = try BenchmarkProcess(fic, ["serve", store, "--port", "0"] + arguments, outputPipe: output)
        // The first line says where it listens.
        guard let text = output.line(timeout: .seconds(600)) else { throw BenchmarkError("fic serve printed nothing in 10 minutes") }
        guard !text.isEmpty else { throw BenchmarkError("fic serve ended before it listened: \(process.lastErrors())") }
        guard let at = text.range(of: "http://") else { throw BenchmarkError("fic serve printed no URL: \(text)") }
        base = String(text[at.lowerBound...].prefix { !$0.isWhitespace }).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    /// Asks it to stop (`SIGTERM`) and waits for it; killed if it is still running after a minute.
    func stop() {
        process.child.signal(SIGTERM)
        _ = process.child.wait(timeout: .seconds(60))
    }
}

/// Two iipsrv FastCGI processes serving the files of a folder, behind an nginx of their own (the
/// setup iipsrv's documentation describes, with two processes for the two cores); nil when iipsrv
/// is not installed.
final class IIPServers {
    static let executable = "/usr/lib/iipimage-server/iipsrv.fcgi"
    private let servers: [ChildProcess]
    private let nginx: LocalNginx
    /// nginx's base URL; tiles are at `/iipsrv?DeepZoom=…`.
    var base: String { "http://127.0.0.1:\(nginx.port)" }

    init?(store: String, prefix: String, log: (String) -> Void) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else { return nil }
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        let ports = (0..<2).map { 31000 + Int(getpid() % 4000) * 2 + $0 }
        log("iipsrv: two FastCGI processes on ports \(ports), JPEG quality 85, behind nginx …")
        servers = try ports.map { port in
            try ChildProcess.start(
                Self.executable, ["--bind", "127.0.0.1:\(port)", "--backlog", "1024"],
                extraEnvironment: ["FILESYSTEM_PREFIX": store + "/", "JPEG_QUALITY": "85", "VERBOSITY": "0"],
                standardError: prefix + "/iipsrv-\(port).err")
        }
        nginx = try LocalNginx(root: store, prefix: prefix + "/nginx", fastCGI: ["/iipsrv": ports])
    }

    func stop() {
        nginx.stop()
        for server in servers { server.kill() }
    }
}
