import FICCore
import FICTestSupport
import Foundation
import HummingbirdTesting
import ImageCodec
import Testing
import TiledImage
import TileServer

/// A store of small pyramids for the Image API's rules, served over HTTP: `example` has the size
/// of the specification's own example image (300 × 200), so its examples can be asked as they are
/// written; `thumbnail` (100 × 80) is smaller than a viewer's thumbnail box; `portrait` is 80 × 100.
/// Their pixels are the pattern of ``PatternStore``.
final class SpecificationStore: @unchecked Sendable {
    static let sizes = ["example": (300, 200), "thumbnail": (100, 80), "portrait": (80, 100)]
    let folder: String
    var storePath: String { folder + "/store" }

    init() throws {
        folder = try ExternalTools.makeFolder("iiif-specification-tests")
        try FileManager.default.createDirectory(atPath: storePath, withIntermediateDirectories: true)
        let store = try TilePyramidStore(path: storePath, byteLimit: Int.max)
        for (name, (width, height)) in Self.sizes {
            var pixels = [UInt8](repeating: 255, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let p = PatternStore.pixel(x, y), i = (y * width + x) * 4
                    (pixels[i], pixels[i + 1], pixels[i + 2]) = (p.b, p.g, p.r)
                }
            }
            let source = folder + "/\(name).png"
            try pixels.withUnsafeBytes {
                try PNGEncoder.write(
                    pixels: $0.baseAddress!, width: width, height: height, bytesPerRow: width * 4, format: .bgrx32, to: source)
            }
            _ = try store.build(name, contentsOf: source, compression: PyramidTIFFCompression.none)
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A server of the store with `limits` (the defaults when nil).
    func server(limits: IIIFLimits? = nil, sizeUpscaling: Bool = true) throws -> TileServer {
        var options = TileServerOptions()
        if let limits { options.limits = limits }
        options.sizeUpscaling = sizeUpscaling
        return try TileServer(storePath: storePath, options: options)
    }
}

/// What a request should be answered with: an image of a size, or a refusal of a status.
enum Expected: Sendable, CustomStringConvertible {
    case image(Int, Int)
    case status(Int)

    var description: String {
        switch self {
        case .image(let w, let h): "a \(w) × \(h) image"
        case .status(let status): "\(status)"
        }
    }
}

/// The answer to one request over HTTP.
struct HTTPAnswer {
    let status: Int
    let contentType: String?
    let body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Requests sent over HTTP on loopback to a server mounted as `fic serve` mounts it.
enum OverHTTP {
    /// The answers of `server` to `paths` (relative to `/iiif/3/`), in order.
    static func answers(_ server: TileServer, _ paths: [String]) async throws -> [HTTPAnswer] {
        try await ErrorBodyTests.application(server).test(.live) { client in
            var answers: [HTTPAnswer] = []
            for path in paths {
                // The test client takes only URI characters: `^` goes as browsers may send it, escaped.
                let response = try await client.execute(uri: "/iiif/3/" + path.replacingOccurrences(of: "^", with: "%5E"), method: .get)
                answers.append(
                    HTTPAnswer(
                        status: Int(response.status.code), contentType: response.headers[.contentType], body: Array(buffer: response.body)))
            }
            return answers
        }
    }

    /// Checks that each path of `cases` is answered as expected by `server`: an image decoded to
    /// the size expected, or the status expected with a plain-text reason.
    static func expect(_ server: TileServer, _ cases: [(String, Expected)], sourceLocation: SourceLocation = #_sourceLocation) async throws
    {
        let answers = try await answers(server, cases.map(\.0))
        for ((path, expected), answer) in zip(cases, answers) {
            switch expected {
            case .image(let width, let height):
                #expect(answer.status == 200, "\(path): \(answer.status) \(answer.text)", sourceLocation: sourceLocation)
                guard answer.status == 200 else { continue }
                let picture = try Picture(answer.body)
                #expect(
                    picture.width == width && picture.height == height,
                    "\(path): \(picture.width) × \(picture.height), not \(expected)", sourceLocation: sourceLocation)
            case .status(let status):
                #expect(answer.status == status, "\(path): \(answer.status), not \(status)", sourceLocation: sourceLocation)
                #expect(
                    answer.contentType == "text/plain; charset=utf-8" && !answer.body.isEmpty,
                    "\(path): a refusal says why", sourceLocation: sourceLocation)
            }
        }
    }
}
