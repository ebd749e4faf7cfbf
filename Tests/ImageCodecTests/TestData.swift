import FICTestSupport
import Foundation
import ImageCodec

/// Locates the shared test images (`FIC_TESTDATA`, or `../../../shared/testdata` from this file).
enum TestData {
    /// The folder holding `manifest.json`.
    static let root: String = {
        if let override = ProcessInfo.processInfo.environment["FIC_TESTDATA"], !override.isEmpty {
            return override
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .appendingPathComponent("../../../shared/testdata")
            .standardizedFileURL.path
    }()

    /// The absolute path of a file given relative to ``root``.
    static func path(_ relative: String) -> String {
        root + "/" + relative
    }

    /// The bytes of a test file. Read with POSIX calls: `Data(contentsOf:)` leaks a buffer for
    /// empty files in this toolchain, which LeakSanitizer reports in the ASan fuzz run.
    static func bytes(_ relative: String) throws -> [UInt8] {
        let descriptor = open(path(relative), O_RDONLY)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path(relative)]) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0 { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path(relative)]) }
                return bytes
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// One manifest row.
    struct Entry: Decodable, Sendable, CustomStringConvertible {
        let file: String
        let format: String?
        let width: Int?
        let height: Int?
        let orientation: Int?
        let displayWidth: Int?
        let displayHeight: Int?
        let hasAlpha: Bool?
        let expect: String
        let why: String?
        let reference: String?

        var description: String { file }
    }

    /// Every manifest row (empty if the manifest cannot be read; a test checks that it can).
    static let manifest: [Entry] = {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path("manifest.json"))) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }()

    /// Rows that must decode.
    static var okEntries: [Entry] { manifest.filter { $0.expect == "ok" } }
    /// Rows that must fail (but for the formats decoded since the manifest was written).
    static var errorEntries: [Entry] { manifest.filter { $0.expect == "error" && !ManifestUpdates.decodedNow.contains($0.file) } }

    /// Every image file of the test data (deduplicated), with its bytes.
    static func allFiles() throws -> [(name: String, bytes: [UInt8])] {
        var seen = Set<String>()
        return try manifest.compactMap { entry in
            guard seen.insert(entry.file).inserted else { return nil }
            return (entry.file, try bytes(entry.file))
        }
    }
}
