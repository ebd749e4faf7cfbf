import FICCore
import Testing
import TileServer

/// The IIIF Image API 3.0 parameters, resolved by hand from the specification's rules for a
/// 1000 × 600 image.
@Suite struct IIIFImageRequestTests {
    private func parse(
        _ region: String, _ size: String = "max", _ rotation: String = "0", _ qf: String = "default.jpg",
        limits: IIIFLimits = .init(), upscaling: Bool = true
    ) throws -> IIIFImageRequest {
        try IIIFImageRequest.parse(
            region: region, size: size, rotation: rotation, qualityAndFormat: qf, imageWidth: 1000, imageHeight: 600,
            limits: limits, upscaling: upscaling)
    }

    private func region(_ r: IIIFImageRequest) -> [Int] { [r.x, r.y, r.regionWidth, r.regionHeight] }
    private func size(_ r: IIIFImageRequest) -> [Int] { [r.width, r.height] }

    @Test func regions() throws {
        #expect(region(try parse("full")) == [0, 0, 1000, 600])
        // The centred square of the shorter side.
        #expect(region(try parse("square")) == [200, 0, 600, 600])
        #expect(region(try parse("10,20,300,200")) == [10, 20, 300, 200])
        // Clipped at the image's edge.
        #expect(region(try parse("900,500,300,300")) == [900, 500, 100, 100])
        // Percentages of the image's sides: 10 % of 1000 and of 600.
        #expect(region(try parse("pct:10,10,50,50")) == [100, 60, 500, 300])
        #expect(region(try parse("pct:0.5,0,99.5,100")) == [5, 0, 995, 600])
        // Edges rounded: 33.3 % is 333 pixels, 66.6 % is 666, so the two thirds meet.
        #expect(region(try parse("pct:33.3,0,33.3,100")) == [333, 0, 333, 600])
        // Inside the image, though narrower than a pixel or in its last half pixel: one pixel.
        #expect(region(try parse("pct:0,0,0.01,100")) == [0, 0, 1, 600])
        #expect(region(try parse("pct:99.99,0,10,100")) == [999, 0, 1, 600])
    }

    @Test func sizes() throws {
        #expect(size(try parse("full", "max")) == [1000, 600])
        #expect(size(try parse("full", "500,")) == [500, 300])
        #expect(size(try parse("full", ",300")) == [500, 300])
        #expect(size(try parse("full", "pct:25")) == [250, 150])
        #expect(size(try parse("full", "200,100")) == [200, 100])
        // The largest 1000:600 size inside 300 × 300 is 300 × 180.
        #expect(size(try parse("full", "!300,300")) == [300, 180])
        #expect(size(try parse("0,0,100,100", "!50,80")) == [50, 50])
        // `max` is fitted inside the limits, keeping the shape: 1000 × 600 inside 400 wide.
        #expect(size(try parse("full", "max", limits: IIIFLimits(maxWidth: 400, maxHeight: 4000, maxArea: 1 << 30))) == [400, 240])
        // … and inside an area of 60 000 pixels: √(60000 / 600000) = 0.316 → 316 × 189.
        let fitted = try parse("full", "max", limits: IIIFLimits(maxWidth: 4000, maxHeight: 4000, maxArea: 60_000))
        #expect(fitted.width * fitted.height <= 60_000 && fitted.width == 316 && fitted.height == 189)
        // A box larger than the region: the region's size; with `^`, the box's.
        #expect(size(try parse("full", "!2000,2000")) == [1000, 600])
        #expect(size(try parse("full", "^!2000,2000")) == [2000, 1200])
        // `^` is accepted when nothing is enlarged, and enlarges within the limits.
        #expect(size(try parse("full", "^500,")) == [500, 300])
        #expect(size(try parse("full", "^pct:150")) == [1500, 900])
        #expect(size(try parse("full", "^max", limits: IIIFLimits(maxWidth: 2000, maxHeight: 2000, maxArea: 1 << 30))) == [2000, 1200])
        #expect(
            size(try parse("full", "^!3000,3000", limits: IIIFLimits(maxWidth: 2000, maxHeight: 2000, maxArea: 1 << 30))) == [2000, 1200])
        #expect(try parse("full", "^2000,").canonicalPath == "0,0,1000,600/^2000,1200/0/default.jpg")
    }

    /// Without upscaling, a `^` size that enlarges is not implemented (501), any other is answered.
    @Test func upscalingOff() throws {
        for size in ["^1001,", "^,601", "^pct:100.5", "^1000,601", "^!2000,2000", "^max"] {
            #expect {
                try parse("full", size, upscaling: false)
            } throws: { error in
                (error as? ImageCacheError)?.code == .notImplemented
            }
        }
        #expect(size(try parse("full", "^500,", upscaling: false)) == [500, 300])
        #expect(size(try parse("full", "^!500,500", upscaling: false)) == [500, 300])
        // A malformed `^` size is still a 400.
        #expect {
            try parse("full", "^abc", upscaling: false)
        } throws: { error in
            (error as? ImageCacheError)?.code == .invalidArgument
        }
    }

    @Test func rotationsAndFormats() throws {
        let r = try parse("full", "max", "!90", "gray.png")
        #expect(r.rotation == 90 && r.mirrored && r.quality == .gray && r.format == .png)
        #expect(try parse("full", "max", "360").rotation == 0)
        #expect(try parse("full", "max", "270.0").rotation == 270)
        #expect(try parse("full", "max", "0", "bitonal.webp").format == .webp)
        #expect(try parse("full", "500,", "180", "color.jpg").canonicalPath == "0,0,1000,600/500,300/180/color.jpg")
    }

    /// Requests the service cannot answer as asked: region, size, rotation, quality and format.
    /// (Typed here: as the test's argument literal, the type checker took 2 s over it.)
    static let refused: [(String, String, String, String)] = [
        // Regions: outside, empty, malformed, negative, too many digits.
        ("1000,0,10,10", "max", "0", "default.jpg"), ("0,600,10,10", "max", "0", "default.jpg"),
        ("0,0,0,10", "max", "0", "default.jpg"), ("pct:0,0,0,10", "max", "0", "default.jpg"),
        ("0,0,10", "max", "0", "default.jpg"), ("-1,0,10,10", "max", "0", "default.jpg"),
        ("0,0,99999999999,10", "max", "0", "default.jpg"), ("abc", "max", "0", "default.jpg"),
        ("0,0,1.5,10", "max", "0", "default.jpg"), ("pct:1..2,0,10,10", "max", "0", "default.jpg"),
        ("", "max", "0", "default.jpg"), ("pct:", "max", "0", "default.jpg"),
        // Sizes: larger than the region without `^`, above the limits, below a pixel, IIIF 2's
        // `full`, empty, malformed.
        ("full", "1001,", "0", "default.jpg"), ("full", "pct:101", "0", "default.jpg"), ("full", "pct:100.01", "0", "default.jpg"),
        ("full", "^5000,", "0", "default.jpg"), ("full", "^pct:0.01", "0", "default.jpg"), ("full", "full", "0", "default.jpg"),
        ("full", "0,", "0", "default.jpg"), ("full", ",", "0", "default.jpg"), ("full", "!0,10", "0", "default.jpg"),
        ("full", "10,10,10", "0", "default.jpg"), ("full", "pct:0", "0", "default.jpg"), ("full", "", "0", "default.jpg"),
        // Rotations other than multiples of 90, above 360, malformed.
        ("full", "max", "45", "default.jpg"), ("full", "max", "450", "default.jpg"), ("full", "max", "!", "default.jpg"),
        ("full", "max", "90.5", "default.jpg"), ("full", "max", "-90", "default.jpg"),
        // Qualities and formats.
        ("full", "max", "0", "native.jpg"), ("full", "max", "0", "default.tif"), ("full", "max", "0", "default"),
        ("full", "max", "0", ".jpg")
    ]

    /// Every request the service cannot answer as asked is a 400 (`.invalidArgument`) with a reason.
    @Test(arguments: refused)
    func refusals(_ region: String, _ size: String, _ rotation: String, _ qf: String) {
        #expect {
            try parse(region, size, rotation, qf)
        } throws: { error in
            (error as? ImageCacheError)?.code == .invalidArgument && !((error as? ImageCacheError)?.message.isEmpty ?? true)
        }
    }

    /// Sizes above the announced limits are refused (only `max` is fitted).
    @Test func limits() {
        let limits = IIIFLimits(maxWidth: 400, maxHeight: 400, maxArea: 100_000)
        #expect(throws: ImageCacheError.self) { try parse("full", "500,", limits: limits) }
        #expect(throws: ImageCacheError.self) { try parse("full", "400,400", limits: limits) }
        #expect((try? parse("full", "400,240", limits: limits)) != nil)
    }
}
