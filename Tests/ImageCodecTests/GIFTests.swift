import FICHarness
import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// GIFs made at test time with ImageMagick and giflib's `gifbuild` (and byte by byte for what no
/// encoder writes), compared with Pillow's first frame: exactly, as the palettes are lossless.
@Suite struct GIFTests {
    typealias Folder = JXLTests.Folder

    /// The pixel at (`x`, `y`).
    static func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> UInt32 {
        image.baseAddress.load(fromByteOffset: y * image.bytesPerRow + x * 4, as: UInt32.self)
    }

    /// Expects `image` to equal Pillow's first frame of `gif`, inside `rectangle` (everywhere
    /// without one: Pillow paints what lies outside the first frame with palette index 0, Chromium
    /// leaves it transparent, as the package does).
    static func expectPillow(
        _ image: DecodedImage, _ gif: [UInt8], in folder: Folder, inside rectangle: (x: Int, y: Int, width: Int, height: Int)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let reference = try ExternalTools.pillow(gif, in: folder.path)
        #expect(
            image.width == reference.width && image.height == reference.height,
            "\(image.width)×\(image.height) against Pillow's \(reference.width)×\(reference.height)", sourceLocation: sourceLocation)
        guard image.width == reference.width && image.height == reference.height else { return }
        let area = rectangle ?? (0, 0, image.width, image.height)
        var differing = 0
        for y in area.y..<(area.y + area.height) {
            for x in area.x..<(area.x + area.width) where pixel(image, x, y) != pixel(reference, x, y) { differing += 1 }
        }
        #expect(differing == 0, "\(differing) pixels differ from Pillow's", sourceLocation: sourceLocation)
    }

    /// Expects every pixel of `image` outside `rectangle` to be transparent.
    static func expectTransparent(
        _ image: DecodedImage, outside rectangle: (x: Int, y: Int, width: Int, height: Int),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var opaque = 0
        for y in 0..<image.height {
            for x in 0..<image.width
            where !(rectangle.x..<(rectangle.x + rectangle.width)).contains(x)
                || !(rectangle.y..<(rectangle.y + rectangle.height)).contains(y)
            {
                if pixel(image, x, y) != 0 { opaque += 1 }
            }
        }
        #expect(opaque == 0, "\(opaque) pixels outside the first frame are not transparent", sourceLocation: sourceLocation)
    }

    /// The rows `RowStreaming` hands out against the one-shot decode's.
    static func expectStreamedRowsMatch(_ gif: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let image = try ImageDecoder.decode(gif)
        for chunk in [1, 100, 1 << 20] {
            let streamed = try RowStreaming.decode(gif, chunkSize: chunk)
            var packed: [UInt8] = []
            for y in 0..<image.height {
                packed += UnsafeRawBufferPointer(start: image.baseAddress + y * image.bytesPerRow, count: image.width * 4)
            }
            #expect(
                streamed.header.format == .gif && streamed.header.hasAlpha == (image.pixelFormat == .bgra32Premultiplied),
                sourceLocation: sourceLocation)
            #expect(streamed.pixels == packed, "chunks of \(chunk)", sourceLocation: sourceLocation)
        }
    }

    /// A photo as a 256-colour GIF (`convert … -colors 256`), interlaced or not.
    static func photoGIF(_ photo: String, interlaced: Bool = false, extra: [String] = [], in folder: Folder) throws -> [UInt8] {
        try ExternalTools.convert(
            [TestData.path(photo), "-colors", "256"] + extra + (interlaced ? ["-interlace", "GIF"] : []),
            in: folder.path, name: "\(UUID().uuidString).gif")
    }

    @Test(arguments: [false, true])
    func aPhotoIsPillowsFirstFrame(interlaced: Bool) throws {
        let folder = try Folder()
        let gif = try Self.photoGIF("photos/chelsea.jpg", interlaced: interlaced, in: folder)
        let info = try ImageDecoder.info(gif)
        #expect(info.format == .gif && info.width == 451 && info.height == 300 && !info.hasAlpha)
        #expect(info.frameCount == 1 && info.bitsPerSample == 8 && info.color == .untagged)
        let image = try ImageDecoder.decode(gif)
        #expect(image.pixelFormat == .bgrx32)
        try Self.expectPillow(image, gif, in: folder)
        try Self.expectStreamedRowsMatch(gif)
    }

    @Test func theSharedTestDataGIFDecodes() throws {
        // Listed by the shared manifest as an unsupported format, from before GIF was decoded.
        let folder = try Folder()
        let gif = try TestData.bytes("bad/unsupported.gif")
        try Self.expectPillow(try ImageDecoder.decode(gif), gif, in: folder)
    }

    @Test func anAnimationShowsItsFirstFrameWhateverFollows() throws {
        let folder = try Folder()
        let photo = TestData.path("photos/coffee.jpg")
        let gif = try ExternalTools.convert(
            [
                "-dispose", "Background", "-delay", "20", "(", photo, "-crop", "300x200+0+0", "+repage", ")",
                "-dispose", "Previous", "(", photo, "-crop", "100x80+300+200", "+repage", ")",
                "-dispose", "None", "(", photo, "-crop", "300x200+200+150", "+repage", ")",
                "-colors", "128", "-loop", "0"
            ], in: folder.path, name: "three.gif")
        let info = try ImageDecoder.info(gif)
        #expect(info.frameCount == 3 && info.width == 300 && info.height == 200)
        try Self.expectPillow(try ImageDecoder.decode(gif), gif, in: folder)
    }

    static let colors4 = """
        screen map
        \trgb 255 0 0 is a
        \trgb 0 255 0 is b
        \trgb 0 0 255 is c
        \trgb 255 255 0 is d
        end
        """

    /// A `gifbuild` description: a `width × height` screen with the four colours above, and frames.
    static func gifbuild(width: Int, height: Int, frames: [String]) -> String {
        "screen width \(width)\nscreen height \(height)\nscreen colors 4\nscreen background 0\n\(colors4)\n\n"
            + frames.joined(separator: "\n")
    }

    /// A frame: its graphic control (transparent index or -1), position, options and rows of keys.
    static func frame(left: Int, top: Int, transparent: Int = -1, options: [String] = [], rows: [String]) -> String {
        """
        graphics control
        \tdisposal mode 0
        \tdelay 10
        \ttransparent index \(transparent)
        end

        image
        image left \(left)
        image top \(top)
        \(options.joined(separator: "\n"))
        image bits \(rows[0].count) by \(rows.count)
        \(rows.joined(separator: "\n"))

        """
    }

    @Test func theTransparentIndexIsTransparent() throws {
        let folder = try Folder()
        let gif = try ExternalTools.gifbuild(
            Self.gifbuild(
                width: 4, height: 3,
                frames: [
                    Self.frame(left: 0, top: 0, transparent: 1, rows: ["abcd", "bbbb", "dcba"])
                ]), in: folder.path)
        let info = try ImageDecoder.info(gif)
        #expect(info.hasAlpha)
        let image = try ImageDecoder.decode(gif)
        #expect(image.pixelFormat == .bgra32Premultiplied)
        #expect(Self.pixel(image, 1, 0) == 0 && Self.pixel(image, 0, 1) == 0 && Self.pixel(image, 0, 0) == 0xFFFF_0000)
        try Self.expectPillow(image, gif, in: folder)
        try Self.expectStreamedRowsMatch(gif)
    }

    @Test func aLocalPaletteReplacesTheGlobalOne() throws {
        let folder = try Folder()
        let local = ["image map", "\trgb 10 20 30 is a", "\trgb 40 50 60 is b", "\trgb 70 80 90 is c", "\trgb 100 110 120 is d", "end"]
        let gif = try ExternalTools.gifbuild(
            Self.gifbuild(
                width: 4, height: 2,
                frames: [
                    Self.frame(left: 0, top: 0, options: local, rows: ["abcd", "dcba"])
                ]), in: folder.path)
        let image = try ImageDecoder.decode(gif)
        #expect(Self.pixel(image, 0, 0) == 0xFF0A_141E)
        try Self.expectPillow(image, gif, in: folder)
    }

    @Test func aFrameInsideTheScreenLeavesTheRestTransparent() throws {
        let folder = try Folder()
        let gif = try ExternalTools.gifbuild(
            Self.gifbuild(
                width: 8, height: 6,
                frames: [
                    Self.frame(left: 2, top: 1, rows: ["abcd", "dcba", "abab"])
                ]), in: folder.path)
        let info = try ImageDecoder.info(gif)
        #expect(info.width == 8 && info.height == 6 && info.hasAlpha)
        let image = try ImageDecoder.decode(gif)
        try Self.expectPillow(image, gif, in: folder, inside: (2, 1, 4, 3))
        Self.expectTransparent(image, outside: (2, 1, 4, 3))
        try Self.expectStreamedRowsMatch(gif)
    }

    @Test func aFirstFrameBeyondTheScreenGrowsTheCanvas() throws {
        // Chromium and Pillow both grow the canvas to hold the first frame (Firefox moves the
        // frame, gdk-pixbuf clips it).
        let folder = try Folder()
        let gif = try ExternalTools.gifbuild(
            Self.gifbuild(
                width: 8, height: 6,
                frames: [
                    Self.frame(left: 6, top: 4, rows: ["abcd", "dcba", "abab"])
                ]), in: folder.path)
        let info = try ImageDecoder.info(gif)
        #expect(info.width == 10 && info.height == 7)
        let image = try ImageDecoder.decode(gif)
        try Self.expectPillow(image, gif, in: folder, inside: (6, 4, 4, 3))
        Self.expectTransparent(image, outside: (6, 4, 4, 3))
        try Self.expectStreamedRowsMatch(gif)
    }

    @Test func anInterlacedFrameHasItsRowsInPlace() throws {
        let folder = try Folder()
        let rows = ["aaaaa", "bbbbb", "ccccc", "ddddd", "abcda", "bcdab", "cdabc", "dabcd", "aabbc", "ccdda", "abcdd"]
        let gif = try ExternalTools.gifbuild(
            Self.gifbuild(
                width: 7, height: 12,
                frames: [
                    Self.frame(left: 1, top: 1, options: ["image interlaced"], rows: rows)
                ]), in: folder.path)
        let flags = gif[try #require(GIFBytes.descriptors(gif).first) + 9]
        #expect(flags & 0x40 != 0, "gifbuild wrote it interlaced")
        let image = try ImageDecoder.decode(gif)
        try Self.expectPillow(image, gif, in: folder, inside: (1, 1, 5, 11))
        Self.expectTransparent(image, outside: (1, 1, 5, 11))
        try Self.expectStreamedRowsMatch(gif)
    }

    @Test func indicesPastThePaletteAreOpaqueBlackAsInChromium() throws {
        // Pillow paints such an index as the grey of its number; Chromium (Wuffs) as opaque black.
        let red: GIFBytes.Color = (255, 0, 0), green: GIFBytes.Color = (0, 255, 0)
        let indices: [UInt8] = [0, 1, 2, 3, 3, 2, 1, 0]
        let withPalette =
            GIFBytes.header(width: 4, height: 2, palette: [red, green])
            + GIFBytes.image(left: 0, top: 0, width: 4, height: 2, indices: indices, minimumCodeSize: 2) + GIFBytes.trailer
        let image = try ImageDecoder.decode(withPalette)
        #expect(image.pixelFormat == .bgrx32)
        #expect([0, 1, 2, 3].map { Self.pixel(image, $0, 0) } == [0xFFFF_0000, 0xFF00_FF00, 0xFF00_0000, 0xFF00_0000])
        let withoutPalette =
            GIFBytes.header(width: 4, height: 2, palette: nil)
            + GIFBytes.image(left: 0, top: 0, width: 4, height: 2, indices: indices, minimumCodeSize: 2) + GIFBytes.trailer
        let black = try ImageDecoder.decode(withoutPalette)
        #expect((0..<4).allSatisfy { Self.pixel(black, $0, 1) == 0xFF00_0000 })
    }

    @Test func aFileCutInsideItsFirstFrameIsRefusedInEveryMode() throws {
        let folder = try Folder()
        let gif = try Self.photoGIF("photos/rocket.jpg", in: folder)
        let data = GIFBytes.imageData(gif, descriptor: try #require(GIFBytes.descriptors(gif).first))  // its first sub-block
        for cut in [4, 10, 13 + 300, data, data + 1, gif.count / 2, gif.count * 9 / 10, gif.count - 2] {
            let part = Array(gif[..<cut])
            for allow in [true, false] {
                let error = try #require(throws: ImageCacheError.self, "cut at \(cut)") {
                    try ImageDecoder.decode(part, options: DecodingOptions(allowCorruptData: allow))
                }
                #expect(error.code == .truncated, "cut at \(cut) of \(gif.count): \(error)")
                let streamed = try #require(throws: ImageCacheError.self) {
                    try RowStreaming.decode(part, chunkSize: 1000, options: RowStreaming.options(allowCorruptData: allow))
                }
                #expect(streamed.code == .truncated, "streamed, cut at \(cut) of \(gif.count): \(streamed)")
            }
        }
        // Without its trailer the first frame is whole: the picture is what the complete file shows.
        #expect(PixelComparison.identical(try ImageDecoder.decode(Array(gif.dropLast())), try ImageDecoder.decode(gif)))
    }

    @Test func laterFramesCutShortDoNotMatter() throws {
        let folder = try Folder()
        let photo = TestData.path("photos/rocket.jpg")
        let gif = try ExternalTools.convert(
            ["-delay", "10", photo, "(", photo, "-flop", ")", "-colors", "64"], in: folder.path, name: "two.gif")
        let descriptors = GIFBytes.descriptors(gif)
        try #require(descriptors.count == 2)
        let second = descriptors[1]
        let cut = Array(gif[..<(second + (gif.count - second) / 2)])
        #expect(try ImageDecoder.info(cut).frameCount == 2)
        #expect(PixelComparison.identical(try ImageDecoder.decode(cut), try ImageDecoder.decode(gif)))
        #expect(
            PixelComparison.identical(
                try ImageDecoder.decode(cut, options: DecodingOptions(allowCorruptData: false)), try ImageDecoder.decode(gif)))
        _ = try RowStreaming.decode(cut, chunkSize: 4096)
    }

    @Test func damagedImageDataShowsTheRowsBeforeTheDamage() throws {
        // The data ends (with an end code) after 2.5 rows of 4: as browsers show it, by default.
        let palette: [GIFBytes.Color] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]
        let indices = (0..<16).map { UInt8($0 % 4) }
        for transparent in [nil, 3] {
            let gif =
                GIFBytes.header(width: 4, height: 4, palette: palette) + GIFBytes.graphicControl(transparentIndex: transparent)
                + GIFBytes.image(left: 0, top: 0, width: 4, height: 4, indices: indices, minimumCodeSize: 2, ending: 10) + GIFBytes.trailer
            let image = try ImageDecoder.decode(gif)
            #expect(!image.warnings.isEmpty)
            #expect(Self.pixel(image, 0, 1) == 0xFFFF_0000 && Self.pixel(image, 2, 1) == 0xFF00_00FF)
            let rest: UInt32 = transparent == nil ? 0xFF00_0000 : 0
            #expect((0..<4).allSatisfy { Self.pixel(image, $0, 2) == rest && Self.pixel(image, $0, 3) == rest })
            let strict = try #require(throws: ImageCacheError.self) {
                try ImageDecoder.decode(gif, options: DecodingOptions(allowCorruptData: false))
            }
            #expect(strict.code == .corruptData, "\(strict)")
            let streamedStrict = try #require(throws: ImageCacheError.self) { try RowStreaming.decode(gif, chunkSize: 5) }
            #expect(streamedStrict.code == .corruptData)
            let streamed = try RowStreaming.decode(gif, chunkSize: 5, options: RowStreaming.options(allowCorruptData: true))
            var packed: [UInt8] = []
            for y in 0..<4 { packed += UnsafeRawBufferPointer(start: image.baseAddress + y * image.bytesPerRow, count: 16) }
            #expect(streamed.pixels == packed)
        }
    }

    @Test func corruptCodesInAPhotoNeverCrash() throws {
        let folder = try Folder()
        let gif = try Self.photoGIF("photos/coffee.jpg", in: folder)
        var rng = SplitMix64(seed: 0x4749_46)
        // Overwrite bytes inside the first frame's sub-blocks, keeping their lengths.
        var blocks: [Range<Int>] = []
        var index = GIFBytes.imageData(gif, descriptor: try #require(GIFBytes.descriptors(gif).first))
        while gif[index] != 0 {
            blocks.append((index + 1)..<(index + 1 + Int(gif[index])))
            index += 1 + Int(gif[index])
        }
        for round in 0..<20 {
            var damaged = gif
            let block = blocks[blocks.count / 4 + round % (blocks.count / 2)]
            for i in block.prefix(8) { damaged[i] = UInt8.random(in: 0...255, using: &rng) }
            do {
                let image = try ImageDecoder.decode(damaged)
                #expect(image.width == 600 && image.height == 400)
            } catch let error as ImageCacheError {
                Issue.record("the default decode refused damage it should show: \(error)")
            }
            do {
                _ = try ImageDecoder.decode(damaged, options: DecodingOptions(allowCorruptData: false))
            } catch let error as ImageCacheError {
                #expect(error.code == .corruptData, "\(error)")
            }
        }
    }

    @Test func aBombIsRefusedBeforeAnythingIsAllocated() throws {
        let palette: [GIFBytes.Color] = [(0, 0, 0), (255, 255, 255)]
        let screen =
            GIFBytes.header(width: 65535, height: 65535, palette: palette)
            + GIFBytes.image(left: 0, top: 0, width: 1, height: 1, indices: [1], minimumCodeSize: 2) + GIFBytes.trailer
        let grown =
            GIFBytes.header(width: 1, height: 1, palette: palette)
            + GIFBytes.image(left: 65535, top: 65535, width: 65535, height: 65535, indices: [1], minimumCodeSize: 2) + GIFBytes.trailer
        for (bomb, side) in [(screen, 65535), (grown, 131_070)] {
            let info = try ImageDecoder.info(bomb)
            #expect(info.width == side && info.height == side)
            let probe = AllocationProbe()
            let error = try AllocationProbe.$current.withValue(probe) {
                try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(bomb) }
            }
            #expect(error.code == .dimensionsTooLarge, "\(error)")
            #expect(probe.largestBytes < 1 << 20)
            let streamed = try #require(throws: ImageCacheError.self) { try RowStreaming.decode(bomb, chunkSize: 3) }
            #expect(streamed.code == .dimensionsTooLarge)
        }
    }

    @Test func aHundredThousandTinyFramesAreCountedOnlySoFar() throws {
        let gif = GIFBytes.tinyFrames(100_000)
        let probe = AllocationProbe()
        let (info, image) = try AllocationProbe.$current.withValue(probe) {
            (try ImageDecoder.info(gif), try ImageDecoder.decode(gif))
        }
        #expect(info.frameCount == GIFBlocks.maximumCountedFrames)
        #expect(image.width == 1 && Self.pixel(image, 0, 0) == 0xFFFF_FFFF)
        #expect(probe.totalBytes < 1 << 20, "\(probe.count) buffers")
        _ = try RowStreaming.decode(gif, chunkSize: 65536)
    }

    @Test func aSmallTargetShrinksRowsAsTheyCome() throws {
        let folder = try Folder()
        let gif = try Self.photoGIF("photos/hubble.jpg", in: folder)
        let full = try ImageDecoder.decode(gif)
        let probe = AllocationProbe()
        let small = try AllocationProbe.$current.withValue(probe) {
            try ImageDecoder.decode(gif, options: DecodingOptions(targetSize: PixelSize(width: 100, height: 100)))
        }
        #expect(small.width == 115 && small.height == 100)
        #expect(probe.largestBytes < full.byteCount / 4, "no full-size bitmap: largest buffer \(probe.largestBytes) bytes")
        JXLTests.expectClose(small, try ScaleTests.areaAverage(full, width: 115, height: 100), atLeast: 30, "against an area average")
    }

    @Test func signatures() {
        func sniff(_ text: String) -> SniffResult { Array(text.utf8).withUnsafeBytes { GIFFormat.sniff($0) } }
        #expect(sniff("GIF87a") == .match(offset: 0) && sniff("GIF89a\u{1}") == .match(offset: 0))
        #expect(sniff("GIF8") == .needMoreBytes && sniff("GIF90a") == .noMatch && sniff("GIX") == .noMatch)
    }

    @Test(arguments: [false, true])
    func theEstimateComesFromTheHeaderAndCoversTheDecode(interlaced: Bool) throws {
        let folder = try Folder()
        let gif = try Self.photoGIF("photos/rocket.jpg", interlaced: interlaced, in: folder)
        let full = try ImageDecoder.estimatedMemory(gif)
        #expect(full.info.width == 640 && full.info.height == 427)
        #expect(try ImageDecoder.estimatedMemory(Array(gif.prefix(2048))) == full, "the header alone")
        for target in [nil, PixelSize(width: 40, height: 40)] {
            let options = DecodingOptions(targetSize: target)
            let estimate = try ImageDecoder.estimatedMemory(gif, options: options)
            let probe = AllocationProbe()
            _ = try AllocationProbe.$current.withValue(probe) { try ImageDecoder.decode(gif, options: options) }
            #expect(
                estimate.outputBytes + estimate.workingBytes >= probe.totalBytes,
                "\(String(describing: target)): \(estimate) against \(probe.sizes)")
        }
    }
}
