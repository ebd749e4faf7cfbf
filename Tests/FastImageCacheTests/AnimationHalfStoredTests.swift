import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// A process stopped (killed, crashed) while it stored an animation's frames leaves frame 0 and
/// a record that says the frames are being stored: the next process does not take it for
/// stored, and an import or a request stores the frames again. A process's own job storing them
/// is not mistaken for one that stopped.
@Suite struct AnimationHalfStoredTests {
    typealias Frames = AnimationPlayerTests

    /// Stores the four-frame GIF, then leaves it as a process stopped after frame 1 would: the
    /// record says "being stored", frames 2 and 3 are missing. Returns the GIF's file.
    static func leaveHalfStored(in dir: TemporaryDirectory, entity: Photo) throws -> [UInt8] {
        let bytes = try Frames.makeGIF(in: dir.path, plays: 0)
        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try Frames.format()])
        try cache.storeImages(from: .encoded(bytes), for: entity)
        let t = try #require(cache.tables["anim"])
        let (entityKey, _) = cache.policy.keys.keys(entity.entityID, entity.sourceImageID)
        try t.storeRecord(try #require(cache.animation(for: entity, format: "anim")), storing: true, for: entity)
        for frame in [2, 3] { t.table.remove(AnimationKeys.frame(frame, of: entityKey)) }
        cache.close()
        return bytes
    }

    /// Each frame's centre is the colour ImageMagick was given for it.
    static func expectEveryFrame(_ cache: ImageCache, _ entity: Photo, sourceLocation: SourceLocation = #_sourceLocation) {
        for (n, colour) in Frames.colours.enumerated() {
            let shown = Frames.centre(cache.cachedImage(for: entity, format: "anim", frame: n))
            #expect(shown.map { $0 == colour } == true, "frame \(n): \(String(describing: shown))", sourceLocation: sourceLocation)
        }
    }

    @Test func anImportStoresTheFramesAgain() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let entity = Photo(entityID: "frames")
        let bytes = try Self.leaveHalfStored(in: dir, entity: entity)

        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try Frames.format()])
        defer { cache.close() }
        #expect(!cache.containsImages(for: entity), "half stored is not stored")
        #expect(cache.cachedImage(for: entity, format: "anim") != nil, "frame 0 is still shown meanwhile")
        #expect(cache.cachedImage(for: entity, format: "anim", frame: 2) == nil)
        try cache.storeImages(from: .encoded(bytes), for: entity)
        #expect(cache.containsImages(for: entity))
        Self.expectEveryFrame(cache, entity)
        let (entityKey, sourceKey) = cache.policy.keys.keys(entity.entityID, entity.sourceImageID)
        #expect(cache.tables["anim"]?.recordState(entity: entityKey, source: sourceKey)?.storing == false)
    }

    @Test func aRequestStoresTheFramesAgain() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let file = URL(fileURLWithPath: dir.path + "/frames-0.gif")
        let entity = Photo(entityID: "frames", url: file)
        _ = try Self.leaveHalfStored(in: dir, entity: entity)

        let provider = CountingProvider()
        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try Frames.format()], provider: provider)
        defer { cache.close() }
        let first = try await cache.image(for: entity, format: "anim")
        #expect(Frames.centre(first).map { $0 == Frames.red } == true)
        #expect(provider.calls == 1, "the request read the source again")
        try await waitUntil("every frame is stored again") { cache.requestStatistics.isIdle && cache.containsImages(for: entity) }
        Self.expectEveryFrame(cache, entity)
        // Stored now: the next request is a hit.
        _ = try await cache.image(for: entity, format: "anim")
        #expect(provider.calls == 1)
    }

    /// While this process's own job stores the frames, the animation is not "left half stored":
    /// the record says "being stored", yet containsImages holds and no second job starts.
    @Test func aJobOfThisProcessIsNotMistakenForAStoppedOne() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let entity = Photo(entityID: "frames")
        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try Frames.format()])
        defer { cache.close() }
        let t = try #require(cache.tables["anim"])
        let (entityKey, sourceKey) = cache.policy.keys.keys(entity.entityID, entity.sourceImageID)
        try cache.storeImages(from: .encoded(try Frames.makeGIF(in: dir.path, plays: 0)), for: entity)
        try t.storeRecord(try #require(cache.animation(for: entity, format: "anim")), storing: true, for: entity)
        #expect(t.isLeftHalfStored(entity: entityKey, source: sourceKey))
        t.setStoringFrames(true, entity: entityKey, source: sourceKey)
        #expect(!t.isLeftHalfStored(entity: entityKey, source: sourceKey))
        #expect(cache.containsImages(for: entity))
        t.setStoringFrames(false, entity: entityKey, source: sourceKey)
        #expect(!cache.containsImages(for: entity))
    }
}
