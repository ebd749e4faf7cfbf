import Foundation
import Testing
@testable import FastImageCache

@Suite struct FormatTests {
    @Test(arguments: ["thumb", "Thumb-2x_v1.0", "a"])
    func validNamesAreAccepted(_ name: String) throws {
        let f = try ImageFormat(name: name, size: CGSize(width: 10, height: 10), maximumCount: 1)
        #expect(f.name == name)
        #expect(f.family == name, "the family defaults to the name")
    }

    @Test(arguments: ["", "has space", "slash/name", "..", "dots/..", "ümlaut", "semi;colon", String(repeating: "x", count: 129)])
    func invalidNamesAreRefused(_ name: String) {
        let error = #expect(throws: ImageCacheError.self) {
            try ImageFormat(name: name, size: CGSize(width: 10, height: 10), maximumCount: 1)
        }
        #expect(error?.code == .invalidFormat)
    }

    @Test func pixelSizeIsPointsTimesScaleRoundedUp() throws {
        let f = try ImageFormat(name: "f", size: CGSize(width: 75, height: 33.3), scale: 3, style: .gray8, maximumCount: 5)
        #expect(f.pixelSize == PixelSize(width: 225, height: 100))
    }

    @Test func badSizesScalesAndCountsAreRefused() {
        #expect(throws: ImageCacheError.self) { try ImageFormat(name: "f", size: CGSize(width: 0, height: 10), maximumCount: 1) }
        #expect(throws: ImageCacheError.self) { try ImageFormat(name: "f", size: CGSize(width: 10, height: 10), scale: 0, maximumCount: 1) }
        #expect(throws: ImageCacheError.self) { try ImageFormat(name: "f", size: CGSize(width: 10, height: 10), maximumCount: 0) }
        #expect(throws: ImageCacheError.self) { try ImageFormat(name: "f", size: CGSize(width: 40000, height: 10), maximumCount: 1) }
    }

    @Test func everyFieldIsPartOfTheIdentity() throws {
        let base = try ImageFormat(name: "f", family: "a", size: CGSize(width: 10, height: 10), scale: 2, style: .bgrx32, maximumCount: 5)
        let variants = [
            try ImageFormat(name: "f", family: "b", size: CGSize(width: 10, height: 10), scale: 2, style: .bgrx32, maximumCount: 5),
            try ImageFormat(name: "f", family: "a", size: CGSize(width: 11, height: 10), scale: 2, style: .bgrx32, maximumCount: 5),
            try ImageFormat(name: "f", family: "a", size: CGSize(width: 10, height: 10), scale: 3, style: .bgrx32, maximumCount: 5),
            try ImageFormat(name: "f", family: "a", size: CGSize(width: 10, height: 10), scale: 2, style: .rgb565, maximumCount: 5),
            try ImageFormat(name: "f", family: "a", size: CGSize(width: 10, height: 10), scale: 2, style: .bgrx32, maximumCount: 6)
        ]
        for v in variants { #expect(v.identity != base.identity) }
    }

    @Test func duplicateFormatNamesAndBadNamespacesAreRefused() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let f = try thumbFormat()
        #expect(throws: ImageCacheError.self) { try ImageCache(directory: dir.path, formats: [f, f]) }
        let e = #expect(throws: ImageCacheError.self) { try ImageCache(directory: dir.path, namespace: "../escape", formats: [f]) }
        #expect(e?.code == .invalidFormat)
    }
}
