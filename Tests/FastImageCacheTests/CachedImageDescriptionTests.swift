import FICTestSupport
import Foundation
import ImageCodec
import Testing
import FastImageCache

/// What `print(image)` shows of a ``CachedImage``: its format, pixel size, pixel style and
/// entity, and the frame of an animation's later frame.
@Suite struct CachedImageDescriptionTests {
    @Test func aStillImageNamesItsFormatSizeStyleAndEntity() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat()])
        let photo = Photo(entityID: "coffee")
        let stored = try cache.setImage(try ImageDecoder.decode(contentsOf: coffee.path), for: photo, format: "thumb")
        let expected = #"CachedImage(thumb, 80×60 px, rgb565, entity "coffee")"#
        #expect("\(stored)" == expected)
        #expect(String(describing: try #require(cache.cachedImage(for: photo, format: "thumb"))) == expected)
        #expect(String(describing: try #require(cache.cachedImage(entityID: "coffee", format: "thumb"))) == expected)
        let debug = String(reflecting: stored)
        #expect(debug == #"CachedImage(thumb, 80×60 px, rgb565, entity "coffee", \#(stored.bytesPerRow) bytes per row, in the table file)"#)
    }

    /// An identifier holding a quote or a line break still reads as one quoted value on one line.
    @Test func theEntityIsQuotedAndEscaped() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()])
        let stored = try cache.setImage(
            try ImageDecoder.decode(contentsOf: coffee.path), for: Photo(entityID: "a \"b\"\nc"), format: "medium")
        #expect("\(stored)" == #"CachedImage(medium, 100×100 px, bgra, entity "a \"b\"\nc")"#)
    }

    @Test func anAnimationsLaterFrameNamesTheFrame() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let gif = try AnimationStoreTests.makeGIF(in: dir.path)
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try AnimationStoreTests.formats())
        let entity = Photo(entityID: "colours", url: gif)
        _ = try cache.storeImages(from: .bytes(try ImageBytes(contentsOf: gif.path)), for: entity)
        let first = try #require(cache.cachedImage(for: entity, format: "large", frame: 0))
        #expect("\(first)" == #"CachedImage(large, 24×20 px, bgra, entity "colours")"#)
        let third = try #require(cache.cachedImage(for: entity, format: "large", frame: 2))
        #expect("\(third)" == #"CachedImage(large, 24×20 px, bgra, entity "colours", frame 2)"#)
        let byID = try #require(cache.cachedImage(entityID: "colours", format: "small", frame: 3))
        #expect("\(byID)" == #"CachedImage(small, 8×8 px, bgra, entity "colours", frame 3)"#)
    }
}
