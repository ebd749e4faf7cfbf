import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

@Suite struct PixelStyleTests {
    /// Draws a known picture (left half red, right half blue) in every style and checks the bytes.
    struct Halves: ImageEntity {
        var entityID = "halves"
        var sourceImageID = "1"
        func sourceImageURL(for format: ImageFormat) -> URL? { nil }
        func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
            canvas.fill(
                CGRect(x: 0, y: 0, width: format.size.width / 2, height: format.size.height), color: CanvasColor(red: 1, green: 0, blue: 0))
            canvas.fill(
                CGRect(x: format.size.width / 2, y: 0, width: format.size.width / 2, height: format.size.height),
                color: CanvasColor(red: 0, green: 0, blue: 1))
        }
    }

    @Test(arguments: PixelStyle.allCases)
    func everyStyleStoresWhatWasDrawn(_ style: PixelStyle) throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let format = try ImageFormat(name: "f", size: CGSize(width: 16, height: 8), scale: 2, style: style, maximumCount: 4)
        let cache = try ImageCache(directory: dir.path, formats: [format])
        let source = try ImageDecoder.decode(contentsOf: coffee.path)
        let image = try cache.setImage(source, for: Halves(), format: "f")
        #expect(image.width == 32 && image.height == 16)
        #expect(image.bytesPerRow == max(64, 32 * style.bytesPerPixel), "rows are padded to 64 bytes")
        let (left, right) = image.withUnsafeBytes { b -> ([UInt8], [UInt8]) in
            let bpp = style.bytesPerPixel
            let row = 5 * image.bytesPerRow
            return (Array(b[(row + 2 * bpp)..<(row + 3 * bpp)]), Array(b[(row + 29 * bpp)..<(row + 30 * bpp)]))
        }
        switch style {
        case .bgra32Premultiplied:
            #expect(left == [0, 0, 255, 255]); #expect(right == [255, 0, 0, 255])
        case .bgrx32:
            #expect(Array(left.prefix(3)) == [0, 0, 255]); #expect(Array(right.prefix(3)) == [255, 0, 0])
        case .rgb565:
            #expect(left == [0x00, 0xF8]); #expect(right == [0x1F, 0x00])
        case .gray8:
            #expect(abs(Int(left[0]) - 76) <= 2, "BT.601 luma of red is about 76, got \(left[0])")
            #expect(abs(Int(right[0]) - 29) <= 2, "BT.601 luma of blue is about 29, got \(right[0])")
        }
        let png = try image.pngData()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let decoded = try ImageDecoder.decode(png)
        #expect(decoded.width == 32 && decoded.height == 16)
    }
}

@Suite struct CachedImageSurfaceTests {
    @Test func aCairoSurfaceWrapsTheMappedPixelsWithoutCopying() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()])
        let source = try ImageDecoder.decode(contentsOf: coffee.path)
        let surface = try cache.setImage(source, for: Photo(entityID: "p"), format: "medium").makeCairoSurface()
        // The image itself was released above: the surface keeps it (and its slot) alive.
        #expect(cache.statistics.formats[0].count == 1)
        let image = try #require(cache.cachedImage(for: Photo(entityID: "p"), format: "medium"))
        #expect(surface.width == 100 && surface.bytesPerRow == image.bytesPerRow)
        #expect(UnsafeRawPointer(surface.pixels) == image.baseAddress, "zero-copy: the surface points at the mapped slot")
        let gray = try ImageFormat(name: "g", size: CGSize(width: 8, height: 8), style: .gray8, maximumCount: 1)
        let grayCache = try ImageCache(directory: dir.path, namespace: "g", formats: [gray])
        let e = #expect(throws: ImageCacheError.self) {
            try grayCache.setImage(source, for: Photo(entityID: "p"), format: "g").makeCairoSurface()
        }
        #expect(e?.code == .drawingFailed)
    }
}
