import Foundation
@testable import FastImageCache
@testable import ImageTable

/// A value guarded by a pthread lock (which Thread Sanitizer understands).
typealias Locked = LockedBox

/// The shared test images: `../shared/testdata` beside the repository, or `FIC_TESTDATA`.
let testdata: String = {
    if let env = ProcessInfo.processInfo.environment["FIC_TESTDATA"] { return env }
    let here = URL(fileURLWithPath: #filePath)
    return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/testdata").path
}()

func testFile(_ relative: String) -> URL { URL(fileURLWithPath: testdata).appendingPathComponent(relative) }

struct TemporaryDirectory {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("fic-cache-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// A photo entity backed by a test file.
struct Photo: ImageEntity {
    var entityID: String
    var sourceImageID: String = "v1"
    var url: URL?
    func sourceImageURL(for format: ImageFormat) -> URL? { url }
}

/// A provider that reads files, counting calls, optionally failing. (Fetches a test holds or
/// cancels: ``GatedProvider``.)
final class CountingProvider: ImageSourceProvider {
    struct State {
        var calls = 0
        var cancellations: [URL] = []
    }
    let state = Locked(State())
    let declineFamilies: Bool
    let failure: Bool

    init(declineFamilies: Bool = false, failure: Bool = false) {
        self.declineFamilies = declineFamilies
        self.failure = failure
    }

    var calls: Int { state.withLockedValue { $0.calls } }
    var cancellations: [URL] { state.withLockedValue { $0.cancellations } }

    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        state.withLockedValue { $0.calls += 1 }
        struct Refused: Error {}
        if failure { throw Refused() }
        return .encoded([UInt8](try Data(contentsOf: url)))
    }

    func shouldDrawFamily(_ family: String, for entity: any ImageEntity) -> Bool { !declineFamilies }

    func didCancelRequest(at url: URL, for entity: any ImageEntity) {
        state.withLockedValue { $0.cancellations.append(url) }
    }
}

func thumbFormat(style: PixelStyle = .rgb565, max: Int = 100) throws -> ImageFormat {
    try ImageFormat(name: "thumb", family: "photos", size: CGSize(width: 40, height: 30), scale: 2, style: style, maximumCount: max)
}

func mediumFormat(max: Int = 100) throws -> ImageFormat {
    try ImageFormat(
        name: "medium", family: "photos", size: CGSize(width: 100, height: 100), scale: 1, style: .bgra32Premultiplied, maximumCount: max)
}

let coffee = testFile("photos/coffee.jpg")
let astronaut = testFile("photos/astronaut.jpg")
