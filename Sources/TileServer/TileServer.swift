#if Server
import FICCore
import Foundation
import ImageCodec
import Logging
import Synchronization
import TiledImage

/// A request as the tile server needs it, whatever HTTP library received it.
public struct TileServerRequest: Sendable {
    /// The URL's path relative to where the routes are mounted, still percent-encoded, without the query.
    public var path: String
    /// The `Host` header, for the ids in `info.json` when no public base URL is set.
    public var host: String?
    /// The `If-None-Match` header.
    public var ifNoneMatch: String?
    /// The `If-Modified-Since` header.
    public var ifModifiedSince: String?
    /// The path the routes are mounted at (such as `/images`, or empty), for the URLs the answers name.
    public var mountPath: String

    /// A request for `path`.
    public init(path: String, host: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil, mountPath: String = "") {
        self.path = path
        self.host = host
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.mountPath = mountPath
    }
}

/// An answer: a status, headers and a body.
public struct TileServerResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header names and values, in order.
    public var headers: [(name: String, value: String)]
    /// The body (empty for 304s and redirects).
    public var body: [UInt8]

    /// The value of the header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Serves the pyramids of a `TilePyramidStore` folder over HTTP: the IIIF Image API 3.0 at
/// compliance level 2, Deep Zoom, and a viewer page. Framework-free: ``respond(to:)`` takes a
/// ``TileServerRequest``; `TileServer+Hummingbird` mounts it on a Hummingbird router.
///
/// Every answer is made from the best level of the pyramid, never from a full-resolution decode;
/// reading and encoding run on a bounded pool of threads (``TileServerOptions/renderThreads``),
/// never on the event loops, with at most ``TileServerOptions/maximumQueuedRenders`` waiting;
/// encoded answers are kept in memory for the next request. Names and parameters are checked
/// before anything is read: nothing outside the store is ever opened.
public final class TileServer: Sendable {
    /// The store's folder.
    public let storePath: String
    /// How it answers.
    public let options: TileServerOptions
    private let catalog: PyramidCatalog
    private let encoded: EncodedTileCache
    private let threads: WorkerThreads
    private let queued = LockedBox(0)
    /// Request paths parsed into routes so far (each request's once, or never for one the
    /// event loop's fast path answers).
    private let routesParsed = Atomic<Int>(0)
    /// The caller's logger: answers that fail for a reason of the server's own (a 500) are logged.
    let logger: Logger

    /// A server of the pyramids in the folder `storePath` (which must exist: a server never
    /// creates what it serves). Opening the store writes nothing; several servers may share it.
    /// Answers that fail for a reason of the server's own (HTTP 500) are logged to `logger`.
    public init(storePath: String, options: TileServerOptions = .init(), logger: Logger = Logger(label: "TileServer")) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: storePath, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImageCacheError(
                .invalidArgument, "there is no pyramid store (a folder of `fic tile IMAGE --out STORE/NAME` pyramids) at \(storePath)",
                path: storePath)
        }
        self.storePath = storePath
        self.options = options
        self.logger = logger
        catalog = PyramidCatalog(
            store: try TilePyramidStore(path: storePath, byteLimit: Int.max), capacity: options.openPyramids,
            decodedTiles: options.decodedTilesDirectory.map { ($0, options.decodedTilesPerPyramid) }, logger: logger)
        encoded = EncodedTileCache(byteLimit: options.encodedCacheBytes)
        threads = WorkerThreads(name: "fic-serve", maximumThreads: options.renderThreads)
    }

    deinit {
        threads.stop()
    }

    /// Kept answers, their bytes, hits and misses (for tests and `fic-bench serve`).
    public var encodedCacheStatistics: (bytes: Int, entries: Int, hits: Int, misses: Int) { encoded.statistics }

    /// How many request paths have been parsed into routes (for tests: each request's path is
    /// parsed at most once).
    package var routeParseCount: Int { routesParsed.load(ordering: .relaxed) }

    /// The answer to `request`. Never throws: every failure is an HTTP error whose plain-text
    /// body says why in a sentence.
    public func respond(to request: TileServerRequest) async -> TileServerResponse {
        do {
            guard let route = try route(of: request.path) else {
                throw ImageCacheError(.notFound, Self.noSuchPage(request.path, mountPath: request.mountPath))
            }
            switch route {
            case .iiifBase(let name):
                // IIIF's base URI redirects to the image information.
                return answer(303, [("Location", "\(request.mountPath)/iiif/3/\(Self.escape(name))/info.json")], [])
            default:
                return try await respond(to: route, request)
            }
        } catch {
            return failure(error, path: request.path)
        }
    }

    /// The route of `path`, counted (the server's one place that parses a path).
    private func route(of path: String) throws -> TileServerRoute? {
        routesParsed.add(1, ordering: .relaxed)
        return try TileServerRoute.parse(path)
    }

    private func respond(to route: TileServerRoute, _ request: TileServerRequest) async throws -> TileServerResponse {
        let options = self.options
        switch route {
        case .index:
            let names = try await render { try self.catalog.names() }
            return answer(
                200, [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")],
                Array(ViewerPage.index(names: names).utf8))
        case .viewer(let name):
            let reader = try await reader(name)
            return document(reader, request, [("Content-Type", "text/html; charset=utf-8")]) {
                Array(ViewerPage.page(name: name, width: reader.pyramid.geometry.width, height: reader.pyramid.geometry.height).utf8)
            }
        case .iiifInfo(let name):
            let reader = try await reader(name)
            let id = try baseURL(request) + "/iiif/3/" + Self.escape(name)
            let headers = [("Content-Type", IIIFServiceInfo.mediaType), ("Link", IIIFServiceInfo.profileLink)]
            // The id depends on the host asked, so the ETag does too.
            return try document(reader, request, tag: id, headers) {
                try IIIFServiceInfo.document(id: id, reader: reader, options: options)
            }
        case .dziDescriptor(let name):
            let reader = try await reader(name)
            return document(reader, request, [("Content-Type", "application/xml")]) {
                Array(StaticTileExport.dziDescriptor(width: reader.pyramid.geometry.width, height: reader.pyramid.geometry.height).utf8)
            }
        case .dziTile(let name, _, _, _), .iiifImage(let name, _, _, _, _):
            let reader = try await reader(name)
            return try await image(name, reader, request, try imageJob(route, reader)!)
        case .iiifBase:
            preconditionFailure("answered by respond(to:)")
        }
    }

    // MARK: Images

    /// What an image route of `reader`'s pyramid asks for: its key among the kept answers, its
    /// media type, and how to make its bytes. Nil for other routes.
    private struct ImageJob {
        let key: String
        let mediaType: String
        let make: @Sendable () throws -> [UInt8]
    }

    /// The job of an image route (nil for others); throws what the route's parameters are refused for.
    private func imageJob(_ route: TileServerRoute, _ reader: PyramidRegionReader) throws -> ImageJob? {
        let quality = options.quality
        switch route {
        case .dziTile(_, let level, let column, let row):
            // Deep Zoom numbers levels from 1 × 1 up; the reader from full resolution down.
            guard level < reader.levelCount else {
                throw ImageCacheError(.notFound, "the image has Deep Zoom levels 0…\(reader.levelCount - 1), not \(level)")
            }
            let index = reader.levelCount - 1 - level
            let size = reader.size(ofLevel: index), side = PyramidGeometry.tileSide
            guard column * side < size.width, row * side < size.height else {
                throw ImageCacheError(
                    .notFound, "level \(level) has tiles 0…\((size.width - 1) / side) × 0…\((size.height - 1) / side), not \(column)_\(row)"
                )
            }
            return ImageJob(key: "dzi/\(level)/\(column)_\(row)", mediaType: "image/jpeg") {
                // A pyramidal TIFF's JPEG tile is already the answer: its bytes, as stored.
                if let stored = try reader.levels.storedJPEG(level: index, column: column, row: row) { return stored }
                let buffer = try TileBuffer()
                return try reader.levels.withTile(level: index, column: column, row: row, buffer: buffer) {
                    pixels, bytesPerRow, width, height in
                    try JPEGEncoder.encode(
                        pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, format: .bgra32Premultiplied,
                        quality: quality)
                }
            }
        case .iiifImage(_, let region, let size, let rotation, let qualityAndFormat):
            let (width, height) = reader.size(ofLevel: 0)
            let parsed = try IIIFImageRequest.parse(
                region: region, size: size, rotation: rotation, qualityAndFormat: qualityAndFormat,
                imageWidth: width, imageHeight: height, limits: options.limits, upscaling: options.sizeUpscaling)
            let hasAlpha = reader.pyramid.hasAlpha
            return ImageJob(key: "iiif/" + parsed.canonicalPath, mediaType: parsed.format.mediaType) {
                if let stored = try Self.storedTile(answering: parsed, from: reader) { return stored }
                let bitmap = try RegionRendering.bitmap(of: parsed, from: reader)
                return try ImageAnswer.encode(bitmap, for: parsed, hasAlpha: hasAlpha, quality: quality)
            }
        default:
            return nil
        }
    }

    /// The stored JPEG tile of a pyramidal TIFF that is exactly `request`'s answer, or nil: a
    /// JPEG in colour, neither rotated nor mirrored, 256 × 256 pixels of a region that is one tile
    /// of a level (`x,y,w,h` with `w` and `h` 256 × 2ⁿ and `x`, `y` multiples of them), a tile
    /// the file stores whole (``TilePyramid/storedJPEGTile(level:column:row:)``).
    private static func storedTile(answering request: IIIFImageRequest, from reader: PyramidRegionReader) throws -> [UInt8]? {
        let side = PyramidGeometry.tileSide
        guard request.format == .jpg, request.quality == .default || request.quality == .color, request.rotation == 0,
            !request.mirrored, request.width == side, request.height == side
        else { return nil }
        for level in reader.pyramid.geometry.levels.indices where request.regionWidth == side << level {
            let span = side << level
            guard request.regionHeight == span, request.x % span == 0, request.y % span == 0 else { return nil }
            return try reader.pyramid.storedJPEGTile(level: level, column: request.x / span, row: request.y / span)
        }
        return nil
    }

    /// The answer to `request` when it is an image already kept for a pyramid already open (or a
    /// 304 for it), else nil: no I/O, no waiting, so an event loop may call it and write the answer
    /// at once (`TileServerFastPath`). Everything else goes through ``respond(to:)``. The path is
    /// not parsed: it is found among the paths that led to kept answers, and served while the
    /// pyramid build that answer came from is the one open.
    public func keptResponse(to request: TileServerRequest) -> TileServerResponse? {
        switch keptAnswer(to: request) {
        case .kept(let entry): entry.response
        case .other(let response): response
        case nil: nil
        }
    }

    /// What ``keptResponse(to:)`` answers, as the event loops write it: the kept answer itself
    /// (its fields and body made once), or another response (a 304 for it).
    enum KeptAnswer {
        case kept(EncodedTileCache.Entry)
        case other(TileServerResponse)
    }

    /// ``keptResponse(to:)``'s answer with the kept answer as it is kept (the fast path's).
    func keptAnswer(to request: TileServerRequest) -> KeptAnswer? {
        // The pyramid's reader is looked up under the cache's lock: a lookup in a dictionary of
        // open readers, under a lock of its own that is never held while this cache is used.
        guard
            let kept = encoded.entry(
                path: request.path, isCurrent: { self.catalog.openReader($0.name)?.pyramid.buildIdentity == $0.build })
        else { return nil }
        guard request.ifNoneMatch != nil || request.ifModifiedSince != nil,
            let unchanged = notModified(request, (kept.etag, kept.lastModified))
        else { return .kept(kept) }
        return .other(unchanged)
    }

    // MARK: Pyramids and work

    /// The reader of the pyramid `name`: at once when it is open, else opened on a render thread.
    private func reader(_ name: String) async throws -> PyramidRegionReader {
        if let open = catalog.openReader(name) { return open }
        return try await render { try self.catalog.reader(name) }
    }

    /// Runs `body` on a render thread, or refuses with `.busy` when too many wait already.
    private func render<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = queued.withLockedValue { count -> Bool in
            guard count < options.maximumQueuedRenders + options.renderThreads else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw ImageCacheError(.busy, "the server has \(options.maximumQueuedRenders) requests waiting; try again shortly")
        }
        defer { queued.withLockedValue { $0 -= 1 } }
        return try await threads.run(body)
    }

    /// An image answer: the kept response for the job (a 304 when the client's copy is current),
    /// else the job's bytes, made on a render thread and kept. Either way the request's path now
    /// leads to the kept answer, for the fast path.
    private func image(
        _ name: String, _ reader: PyramidRegionReader, _ request: TileServerRequest, _ job: ImageJob
    ) async throws -> TileServerResponse {
        let cacheKey = reader.pyramid.buildIdentity + "/" + job.key
        let target = EncodedTileCache.PathTarget(key: cacheKey, name: name, build: reader.pyramid.buildIdentity)
        if let kept = encoded.entry(cacheKey) {
            encoded.remember(path: request.path, for: target)
            return conditional(request, kept)
        }
        let validators = self.validators(reader, tag: job.key)
        if let unchanged = notModified(request, validators) { return unchanged }
        let bytes = try await render(job.make)
        let response = answer(
            200,
            [
                ("Content-Type", job.mediaType), ("Cache-Control", options.imageCacheControl), ("ETag", validators.etag),
                ("Last-Modified", validators.lastModified)
            ], bytes)
        encoded.insert(.init(response: response, etag: validators.etag, lastModified: validators.lastModified), for: cacheKey)
        encoded.remember(path: request.path, for: target)
        return response
    }

    /// A kept response as it is (no hashing, no header made again), or a 304 for it.
    private func conditional(_ request: TileServerRequest, _ kept: EncodedTileCache.Entry) -> TileServerResponse {
        guard request.ifNoneMatch != nil || request.ifModifiedSince != nil else { return kept.response }
        return notModified(request, (kept.etag, kept.lastModified)) ?? kept.response
    }

    /// A small document made from the pyramid's facts (no pixels read), with its validators; a
    /// 304 when the client's copy is current (then nothing is made).
    private func document(
        _ reader: PyramidRegionReader, _ request: TileServerRequest, tag: String = "",
        _ headers: [(String, String)], _ make: () throws -> [UInt8]
    ) rethrows -> TileServerResponse {
        let validators = self.validators(reader, tag: tag)
        if let unchanged = notModified(request, validators) { return unchanged }
        return answer(
            200,
            headers + [
                ("Cache-Control", options.documentCacheControl),
                ("ETag", validators.etag), ("Last-Modified", validators.lastModified)
            ], try make())
    }

    // MARK: HTTP details

    /// The `ETag` (this build of the pyramid, and what of it) and `Last-Modified` of an answer.
    private func validators(_ reader: PyramidRegionReader, tag: String) -> (etag: String, lastModified: String) {
        let etag = "\"" + SHA256Hex.digest(of: reader.pyramid.buildIdentity + " " + tag, length: 20) + "\""
        return (etag, HTTPDate.format(reader.pyramid.modificationTime))
    }

    /// A 304 when the request's validators match (`If-None-Match` first, as RFC 9110 orders).
    private func notModified(_ request: TileServerRequest, _ validators: (etag: String, lastModified: String)) -> TileServerResponse? {
        let headers = [("ETag", validators.etag), ("Last-Modified", validators.lastModified)]
        if let match = request.ifNoneMatch {
            let tags = match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains(validators.etag) || tags.contains("W/" + validators.etag) || tags.contains("*")
                ? answer(304, headers, []) : nil
        }
        if let since = request.ifModifiedSince.flatMap(HTTPDate.parse), let modified = HTTPDate.parse(validators.lastModified),
            modified <= since
        {
            return answer(304, headers, [])
        }
        return nil
    }

    /// What ids start with: the configured public URL, or `http://` and the request's `Host` when
    /// that is a plain host name or address and port.
    private func baseURL(_ request: TileServerRequest) throws -> String {
        if let base = options.publicBaseURL { return base }
        guard let host = request.host, !host.isEmpty, host.utf8.count <= 255,
            host.utf8.allSatisfy({ c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x2E || c == 0x3A
                    || c == 0x5B || c == 0x5D
            })
        else {
            throw ImageCacheError(.invalidArgument, "the request has no valid Host header, which the image's id is made from")
        }
        return "http://" + host + request.mountPath
    }

    /// `name` as a path segment (pyramid names are letters, digits, `-`, `_` and `.`: nothing to escape).
    private static func escape(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? name
    }

    private func answer(_ status: Int, _ headers: [(String, String)], _ body: [UInt8]) -> TileServerResponse {
        // Every answer may be read by pages of any origin (IIIF viewers are often elsewhere).
        TileServerResponse(
            status: status, headers: [("Access-Control-Allow-Origin", "*")] + headers.map { (name: $0.0, value: $0.1) }, body: body)
    }

    /// The HTTP error for `error`, its reason as the body.
    private func failure(_ error: any Error, path: String) -> TileServerResponse {
        let code = (error as? ImageCacheError)?.code
        let status =
            switch code {
            case .invalidArgument?: 400
            case .notFound?: 404
            case .notImplemented?: 501
            case .busy?, .inUse?: 503
            default: 500
            }
        let reason = (error as? ImageCacheError)?.message ?? "\(error)"
        if status == 500 { logger.error("\(path): \(error)") }
        return refusal(status, reason, status == 503 ? [("Retry-After", "1")] : [])
    }

    /// An error answer: `status`, and `reason` as a plain-text sentence (capitalised, ending in
    /// a full stop), never kept by caches.
    func refusal(_ status: Int, _ reason: String, _ headers: [(String, String)] = []) -> TileServerResponse {
        var sentence = reason.prefix(1).uppercased() + reason.dropFirst()
        if let last = sentence.last, !".!?".contains(last) { sentence += "." }
        return answer(
            status, [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")] + headers, Array((sentence + "\n").utf8))
    }

    /// Why there is nothing at `path` (relative to `mountPath`): the paths this server answers.
    static func noSuchPage(_ path: String, mountPath: String) -> String {
        "No such page: \(shortened(mountPath + path)). This server answers \(mountPath)/iiif/3/NAME/…, \(mountPath)/dzi/NAME.dzi "
            + "and \(mountPath)/view/NAME; \(mountPath)/ lists the pyramids."
    }

    /// `path` as a message shows it: its first 200 bytes (a path may be 80 KB long).
    static func shortened(_ path: String) -> String {
        path.utf8.count <= 200 ? path : String(decoding: path.utf8.prefix(200), as: UTF8.self) + "…"
    }
}
#endif
