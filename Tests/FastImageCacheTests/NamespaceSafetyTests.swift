import CCairo
import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

/// Opening a cache never touches what it did not make.
@Suite struct NamespaceSafetyTests {
    /// A folder of a user's own things: photos, a note, a sub-folder, and a table-like file that
    /// is not a table.
    func makeUserFolder(_ root: String) throws -> [String: Data] {
        var made: [String: Data] = [:]
        try FileManager.default.createDirectory(atPath: root + "/Pictures/2024", withIntermediateDirectories: true)
        made["Pictures/coffee.jpg"] = try Data(contentsOf: coffee)
        made["Pictures/notes.txt"] = Data("my notes".utf8)
        made["Pictures/2024/astronaut.jpg"] = try Data(contentsOf: astronaut)
        made["Pictures/old.fictable"] = Data("not a table, just named like one".utf8)
        for (name, data) in made { try data.write(to: URL(fileURLWithPath: root + "/" + name)) }
        return made
    }

    @Test func aNamespaceOverAUsersFolderKeepsEveryFile() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let made = try makeUserFolder(dir.path)
        let cache = try ImageCache(directory: dir.path, namespace: "Pictures", formats: [try thumbFormat()])
        try cache.setImage(encoded: [UInt8](try Data(contentsOf: coffee)), for: Photo(entityID: "c"), format: "thumb")
        cache.close()
        for (name, data) in made {
            #expect((try? Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + name))) == data, "\(name) is untouched")
        }
    }

    @Test func onlyProvablyOwnTablesOfDroppedFormatsAreRemoved() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let first = try ImageCache(directory: dir.path, namespace: "ns", formats: [try thumbFormat(), try mediumFormat()])
        try first.setImage(encoded: [UInt8](try Data(contentsOf: coffee)), for: Photo(entityID: "c"), format: "medium")
        first.close()
        try Data("user data".utf8).write(to: URL(fileURLWithPath: dir.path + "/ns/mine.fictable"))
        let second = try ImageCache(directory: dir.path, namespace: "ns", formats: [try thumbFormat()])
        second.close()
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/ns/medium.fictable"), "the cache's own table of a dropped format goes")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/ns/mine.fictable"), "a file that is not a valid table stays")
    }

    @Test func aNamespaceThatIsALinkIsRefusedAndItsTargetUntouched() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let made = try makeUserFolder(dir.path)
        try FileManager.default.createDirectory(atPath: dir.path + "/cache", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/cache/ns", withDestinationPath: dir.path + "/Pictures")
        let error = #expect(throws: ImageCacheError.self) {
            try ImageCache(directory: dir.path + "/cache", namespace: "ns", formats: [try thumbFormat()])
        }
        #expect(error?.code == .unsafePath, "\(String(describing: error))")
        for (name, data) in made {
            #expect((try? Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + name))) == data, "\(name) is untouched")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/Pictures/thumb.fictable"))
    }

    /// A second cache on the namespace, with another format, opens beside the first: it adds its
    /// own table and removes nothing of the first's (it is not alone), and the first's images stay.
    @Test func aSecondCacheWithAnotherFormatOpensBesideTheFirstAndRemovesNothing() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let first = try ImageCache(directory: dir.path, namespace: "ns", formats: [try mediumFormat()])
        let photo = Photo(entityID: "c")
        try first.setImage(encoded: [UInt8](try Data(contentsOf: coffee)), for: photo, format: "medium")
        let second = try ImageCache(directory: dir.path, namespace: "ns", formats: [try thumbFormat()])
        #expect(FileManager.default.fileExists(atPath: dir.path + "/ns/medium.fictable"))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/ns/thumb.fictable"))
        #expect(first.cachedImage(for: photo, format: "medium") != nil)
        second.close()
        first.close()
        let reopened = try ImageCache(directory: dir.path, namespace: "ns", formats: [try mediumFormat()])
        #expect(reopened.cachedImage(for: photo, format: "medium") != nil, "the first cache's image survived")
        reopened.close()
    }

    @Test func aHeldImageNeverChangesAcrossCloseReopenAndInsert() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let format = try mediumFormat(max: 1)
        let cache = try ImageCache(directory: dir.path, namespace: "ns", formats: [format])
        let held = try cache.setImage(encoded: [UInt8](try Data(contentsOf: coffee)), for: Photo(entityID: "c"), format: "medium")
        let before = held.withUnsafeBytes { Array($0) }
        cache.close()
        let again = try ImageCache(directory: dir.path, namespace: "ns", formats: [format])
        // One slot: storing another image must take the held image's slot in the file.
        try again.setImage(encoded: [UInt8](try Data(contentsOf: astronaut)), for: Photo(entityID: "a"), format: "medium")
        let unchanged = held.withUnsafeBytes { Array($0) } == before
        #expect(unchanged, "the held image's pixels did not change")
        again.close()
    }

    @Test func aFailedDrawStoresNothing() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, namespace: "ns", formats: [try mediumFormat()])
        defer { cache.close() }
        struct Broken: ImageEntity {
            var entityID = "broken"
            var sourceImageID = "v1"
            func sourceImageURL(for format: ImageFormat) -> URL? { nil }
            func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
                canvas.withCairoContext { cairo_scale($0, 0, 0) }  // an invalid matrix: cairo records an error
                canvas.draw(source, in: CGRect(x: 0, y: 0, width: 10, height: 10), contentMode: .aspectFill)
            }
        }
        let source = try ImageDecoder.decode(try Data(contentsOf: coffee))
        let error = #expect(throws: ImageCacheError.self) { try cache.setImage(source, for: Broken(), format: "medium") }
        #expect(error?.code == .drawingFailed)
        #expect(cache.cachedImage(for: Broken(), format: "medium") == nil)
        #expect(cache.statistics.formats[0].count == 0)
    }

    @Test(arguments: [
        (1e300, 1.0, 1.0), (1.0, 1.0, 1e300), (9.3e18, 1.0, 1.0), (1.0, 9.3e18, 1.0), (.infinity, 1.0, 1.0), (40000, 1, 1), (1, 1, 0),
        (-1, 1, 1)
    ])
    func absurdFormatSizesAreRefused(width: Double, height: Double, scale: Double) {
        let error = #expect(throws: ImageCacheError.self) {
            try ImageFormat(name: "a", size: CGSize(width: width, height: height), scale: scale, maximumCount: 10)
        }
        #expect(error?.code == .invalidFormat)
    }

    @Test func absurdFormatsInJSONAreRefused() throws {
        let valid = String(
            decoding: try JSONEncoder().encode(try ImageFormat(name: "a", size: CGSize(width: 12345, height: 1), maximumCount: 10)),
            as: UTF8.self)
        #expect(valid.contains("12345"))
        for absurd in ["1e300", "9.3e18", "40000"] {
            let json = valid.replacingOccurrences(of: "12345", with: absurd)
            let error = #expect(throws: ImageCacheError.self) { try JSONDecoder().decode(ImageFormat.self, from: Data(json.utf8)) }
            #expect(error?.code == .invalidFormat)
        }
    }

    @Test func keysAreCryptographicHashesOfTheirNames() {
        // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 …
        #expect(TableKey("abc") == TableKey(high: 0xba78_16bf_8f01_cfea, low: 0x4141_40de_5dae_2223))
    }
}
