import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

/// What `storeImages` says it did: whether it decoded, and the decoder's warnings, so that an
/// import reporting on each file needs no decoder of its own. The references are the decoders run
/// directly on the same bytes.
@Suite struct StoredImagesTests {
    @Test func aDamagedStillReportsItsDecodersWarningsOnceAndNothingWhenStoredAlready() throws {
        let bytes = try DecodeDamageLogTests.damagedJPEG()
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()])
        defer { cache.close() }
        let reference = try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: cache.decodeSize(forFamiliesOf: ["medium"])))
        try #require(!reference.warnings.isEmpty, "the damaged JPEG decodes with warnings")
        let photo = Photo(entityID: "damaged", url: coffee)

        let stored = try cache.storeImages(from: .encoded(bytes), for: photo)
        #expect(stored.decoded)
        #expect(stored.warnings == reference.warnings)
        #expect(stored["medium"] != nil && Set(stored.images.keys) == ["medium"])

        let again = try cache.storeImages(from: .encoded(bytes), for: photo)
        #expect(!again.decoded, "every format holds the image: nothing is decoded")
        #expect(again.warnings.isEmpty)
        #expect(again["medium"] != nil)
        #expect(cache.statistics.sourceDecodes == 1)
    }

    @Test func anAnimationCutShortKeepsTheFramesBeforeTheCutAndSaysWhy() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let whole = [UInt8](try Data(contentsOf: try AnimationStoreTests.makeGIF(in: dir.path)))
        // Cut inside the last frame's image data (the file ends with its block terminator and
        // the trailer).
        let bytes = Array(whole.prefix(whole.count - 6))
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try AnimationStoreTests.formats())
        defer { cache.close() }
        let options = DecodingOptions(targetSize: cache.decodeSize(forFamiliesOf: ["small", "large"]))
        // The reference: the frame decoder alone delivers some frames, then says why it stopped.
        let decoder = try AnimatedImageDecoder(bytes, options: options)
        var delivered = 0
        let failure = #expect(throws: ImageCacheError.self) { try decoder.forEachFrame { _ in delivered += 1 } }
        try #require(delivered >= 2 && delivered < 4, "\(delivered) frames before the cut")
        let entity = Photo(entityID: "cut")

        let stored = try cache.storeImages(from: .encoded(bytes), for: entity, family: "anim")
        #expect(stored.decoded)
        #expect(stored.warnings.count == 1)
        #expect(
            stored.warnings.first?.contains(failure?.message ?? "?") == true, "\(stored.warnings) against \(String(describing: failure))")
        for format in ["small", "large"] {
            #expect(cache.animation(for: entity, format: format)?.frameCount == delivered, "format \(format)")
        }
    }
}
