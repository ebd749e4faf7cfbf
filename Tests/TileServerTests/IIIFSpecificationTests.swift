import Foundation
import Testing
import TileServer

/// The IIIF Image API 3.0's image requests, rule by rule: each test's name is the sentence of the
/// specification (https://iiif.io/api/image/3.0/) it enforces, and its requests go over HTTP to
/// the server as `fic serve` mounts it, answers decoded to check their sizes. `example` is the
/// specification's example image size (300 × 200), so its own examples are asked as written.
@Suite struct IIIFSpecificationTests {
    let store: SpecificationStore
    init() throws { store = try SpecificationStore() }

    /// Limits of 200 pixels a side (the specification's `max` example assumes a `maxWidth` of 200).
    static let narrow = IIIFLimits(maxWidth: 200, maxHeight: 200, maxArea: 1 << 20)
    /// Limits of 360 pixels a side (its `^max` example assumes a `maxWidth` of 360).
    static let upTo360 = IIIFLimits(maxWidth: 360, maxHeight: 360, maxArea: 1 << 20)

    // MARK: 4.1 Region

    @Test(
        "4.1: \"If the request specifies a region which extends beyond the dimensions of the full image as reported in the image information document, then the service SHOULD return an image cropped at the image's edge, rather than adding empty space.\""
    )
    func regionsBeyondTheEdgeAreCropped() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                // The specification's examples 5 and 6: "Returned image is 175,185 px".
                ("example/125,15,200,200/max/0/default.jpg", .image(175, 185)),
                ("example/pct:41.6,7.5,66.6,100/max/0/default.jpg", .image(175, 185)),
                ("example/250,150,1000,1000/max/0/default.jpg", .image(50, 50)),
                // Starts inside the image (at 299.7 pixels): its last column, not a 400.
                ("example/pct:99.9,0,50,100/max/0/default.jpg", .image(1, 200))
            ])
    }

    @Test(
        "4.1: \"If the requested region's height or width is zero, or if the region is entirely outside the bounds of the reported dimensions, then the server SHOULD return a 400 (Bad Request) status code.\""
    )
    func emptyOrOutsideRegionsAre400() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/0,0,0,10/max/0/default.jpg", .status(400)),
                ("example/0,0,10,0/max/0/default.jpg", .status(400)),
                ("example/pct:0,0,0,50/max/0/default.jpg", .status(400)),
                ("example/300,0,10,10/max/0/default.jpg", .status(400)),
                ("example/0,200,10,10/max/0/default.jpg", .status(400)),
                ("example/pct:100,0,10,10/max/0/default.jpg", .status(400)),
                ("example/pct:0,100,10,10/max/0/default.jpg", .status(400)),
                // Neither zero nor outside, only narrower than a pixel (0.3 of one): the pixel it lies on.
                ("example/pct:0,0,0.1,50/max/0/default.jpg", .image(1, 100))
            ])
    }

    @Test(
        "4.1 square: \"The region is defined as an area where the width and height are both equal to the length of the shorter dimension of the full image.\""
    )
    func squareIsTheShorterSide() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/square/max/0/default.jpg", .image(200, 200)),
                ("portrait/square/max/0/default.jpg", .image(80, 80)),
                ("thumbnail/square/max/0/default.jpg", .image(80, 80))
            ])
    }

    @Test(
        "4.1 pct:x,y,w,h: \"The region to be returned is specified as a sequence of percentages of the full image's dimensions, as reported in the image information document.\""
    )
    func percentRegionsArePercentagesOfTheImage() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                // The specification's example 4: 124.8, 15, 120 and 140 pixels.
                ("example/pct:41.6,7.5,40,70/max/0/default.jpg", .image(120, 140)),
                ("example/pct:0,0,100,100/max/0/default.jpg", .image(300, 200)),
                ("example/pct:50,50,50,50/max/0/default.jpg", .image(150, 100)),
                ("portrait/pct:25,10,50,50/max/0/default.jpg", .image(40, 50))
            ])
    }

    // MARK: 4.2 Size

    @Test(
        "4.2 max: \"The extracted region is returned at the maximum size available, but will not be upscaled. The resulting image will have the pixel dimensions of the extracted region, unless it is constrained to a smaller size by maxWidth, maxHeight, or maxArea\""
    )
    func maxIsTheRegionWithinTheLimits() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("thumbnail/full/max/0/default.jpg", .image(100, 80)),
                ("example/10,10,50,40/max/0/default.jpg", .image(50, 40))
            ])
        // The specification's example: a maxWidth of 200.
        try await OverHTTP.expect(
            try store.server(limits: Self.narrow),
            [
                ("example/full/max/0/default.jpg", .image(200, 133)),
                ("portrait/full/max/0/default.jpg", .image(80, 100))
            ])
        // maxArea 10 000: 122 × 82 would be 10 004 pixels.
        try await OverHTTP.expect(
            try store.server(limits: IIIFLimits(maxWidth: 4096, maxHeight: 4096, maxArea: 10_000)),
            [
                ("example/full/max/0/default.jpg", .image(122, 81))
            ])
    }

    @Test(
        "4.2 ^max: \"The extracted region is scaled to the maximum size permitted by maxWidth, maxHeight, or maxArea … If the resulting dimensions are greater than the pixel width and height of the extracted region, the extracted region is upscaled.\""
    )
    func caretMaxIsTheLimits() async throws {
        try await OverHTTP.expect(
            try store.server(limits: Self.upTo360),
            [
                // The specification's example: a maxWidth of 360.
                ("example/full/^max/0/default.jpg", .image(360, 240)),
                ("thumbnail/full/^max/0/default.jpg", .image(360, 288))
            ])
        try await OverHTTP.expect(
            try store.server(limits: Self.narrow),
            [
                ("example/full/^max/0/default.jpg", .image(200, 133))
            ])
    }

    @Test(
        "4.2 w,: \"The extracted region should be scaled so that the width of the returned image is exactly equal to w. The value of w MUST NOT be greater than the width of the extracted region.\""
    )
    func sizeByWidth() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/150,/0/default.jpg", .image(150, 100)),
                ("example/full/300,/0/default.jpg", .image(300, 200)),
                ("example/full/301,/0/default.jpg", .status(400)),
                ("example/0,0,100,100/101,/0/default.jpg", .status(400))
            ])
    }

    @Test("4.2 ^w,: \"If w is greater than the pixel width of the extracted region, the extracted region is upscaled.\"")
    func caretSizeByWidth() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/^360,/0/default.jpg", .image(360, 240)),
                ("example/full/^150,/0/default.jpg", .image(150, 100))
            ])
    }

    @Test(
        "4.2 ,h: \"The extracted region should be scaled so that the height of the returned image is exactly equal to h. The value of h MUST NOT be greater than the height of the extracted region.\""
    )
    func sizeByHeight() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/,150/0/default.jpg", .image(225, 150)),
                ("example/full/,201/0/default.jpg", .status(400))
            ])
    }

    @Test("4.2 ^,h: \"If h is greater than the pixel height of the extracted region, the extracted region is upscaled.\"")
    func caretSizeByHeight() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/^,240/0/default.jpg", .image(360, 240))
            ])
    }

    @Test(
        "4.2 pct:n: \"The width and height of the returned image is scaled to n percent of the width and height of the extracted region. The value of n MUST NOT be greater than 100.\""
    )
    func sizeByPercent() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/pct:50/0/default.jpg", .image(150, 100)),
                ("example/full/pct:100/0/default.jpg", .image(300, 200)),
                // 100.4 % of 100 × 80 rounds to 100 × 80, but n is above 100.
                ("thumbnail/full/pct:100.4/0/default.jpg", .status(400)),
                ("example/full/pct:120/0/default.jpg", .status(400))
            ])
    }

    @Test("4.2 ^pct:n: \"For values of n greater than 100, the extracted region is upscaled.\"")
    func caretSizeByPercent() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/^pct:120/0/default.jpg", .image(360, 240)),
                ("example/full/^pct:50/0/default.jpg", .image(150, 100))
            ])
    }

    @Test(
        "4.2 w,h: \"The width and height of the returned image are exactly w and h. … The values of w and h MUST NOT be greater than the corresponding pixel dimensions of the extracted region.\""
    )
    func sizeByWidthAndHeight() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/225,100/0/default.jpg", .image(225, 100)),
                ("example/full/300,201/0/default.jpg", .status(400)),
                ("example/full/301,1/0/default.jpg", .status(400))
            ])
    }

    @Test(
        "4.2 ^w,h: \"If w and/or h are greater than the corresponding pixel dimensions of the extracted region, the extracted region is upscaled.\""
    )
    func caretSizeByWidthAndHeight() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/^360,360/0/default.jpg", .image(360, 360)),
                // Enlarged across, shrunk down.
                ("example/full/^400,100/0/default.jpg", .image(400, 100))
            ])
    }

    @Test(
        "4.2 !w,h: \"The returned image MUST be as large as possible but not larger than the extracted region, w or h, or server-imposed limits.\""
    )
    func confinedSize() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                // The specification's example 6: "Returned image is 150,100 px".
                ("example/full/!225,100/0/default.jpg", .image(150, 100)),
                ("example/full/!300,50/0/default.jpg", .image(75, 50)),
                // A box larger than the region: the region's own size.
                ("example/full/!2000,3000/0/default.jpg", .image(300, 200)),
                ("portrait/full/!120,120/0/default.jpg", .image(80, 100))
            ])
        // A box larger than the limits: the limits.
        try await OverHTTP.expect(
            try store.server(limits: Self.narrow),
            [
                ("example/full/!1000,1000/0/default.jpg", .image(200, 133))
            ])
    }

    /// Mirador's and Universal Viewer's thumbnails ask for a 120-pixel box, whatever the image's size.
    @Test("4.2 !w,h: a viewer's thumbnail (full/!120,120/0/default.jpg) of a 100 × 80 image is the 100 × 80 image")
    func thumbnailOfASmallImage() async throws {
        let answer = try #require(try await OverHTTP.answers(try store.server(), ["thumbnail/full/!120,120/0/default.jpg"]).first)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.contentType == "image/jpeg")
        let picture = try Picture(answer.body)
        #expect(picture.width == 100 && picture.height == 80)
    }

    @Test("4.2 ^!w,h: \"The returned image MUST be as large as possible but not larger than w, h, or server-imposed limits.\"")
    func caretConfinedSize() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                // The specification's example 6: "Returned image is 360,240 px".
                ("example/full/^!360,360/0/default.jpg", .image(360, 240)),
                ("example/full/^!100,100/0/default.jpg", .image(100, 67))
            ])
        try await OverHTTP.expect(
            try store.server(limits: Self.narrow),
            [
                ("example/full/^!360,360/0/default.jpg", .image(200, 133))
            ])
    }

    @Test(
        "4.2: \"With the exception of the w,h and ^w,h forms, the returned image maintains the aspect ratio of the extracted region as closely as possible.\""
    )
    func aspectRatioIsKept() async throws {
        // A 299 × 200 region: each form's other side is the nearest whole number to the exact ratio.
        let forms = ["150,", ",150", "pct:33.3", "!77,77", "max", "^450,", "^,250", "^pct:133.3", "^!500,500"]
        let answers = try await OverHTTP.answers(try store.server(), forms.map { "example/0,0,299,200/\($0)/0/default.png" })
        for (form, answer) in zip(forms, answers) {
            #expect(answer.status == 200, "\(form): \(answer.text)")
            guard answer.status == 200 else { continue }
            let picture = try Picture(answer.body)
            let exactHeight = Double(picture.width) * 200 / 299, exactWidth = Double(picture.height) * 299 / 200
            #expect(
                abs(Double(picture.height) - exactHeight) <= 0.5 || abs(Double(picture.width) - exactWidth) <= 0.5,
                "\(form): \(picture.width) × \(picture.height)")
        }
    }

    @Test(
        "4.2: \"Requests for sizes not prefixed with ^ that result in a scaled region with pixel dimensions greater than the pixel dimensions of the extracted region are errors that SHOULD result in a 400 (Bad Request) status code.\""
    )
    func enlargingWithoutCaretIs400() async throws {
        let paths = [
            "example/full/301,/0/default.jpg", "example/full/,201/0/default.jpg", "example/full/pct:101/0/default.jpg",
            "example/full/301,200/0/default.jpg", "example/10,10,20,20/40,40/0/default.jpg"
        ]
        for answer in try await OverHTTP.answers(try store.server(), paths) {
            #expect(answer.status == 400)
            #expect(answer.text.contains("'^'"), "the reason names the form that enlarges: \(answer.text)")
        }
    }

    @Test(
        "4.2: \"Requests for sizes prefixed with ^ that require upscaling SHOULD result in a 501 (Not Implemented) status code if the server does not support upscaling, while a 400 (Bad Request) status code SHOULD be returned in response to other client request syntax errors.\""
    )
    func caretWithoutUpscalingIs501() async throws {
        try await OverHTTP.expect(
            try store.server(sizeUpscaling: false),
            [
                // "For example, a request for the size ^pct:120 should result in a 501 status code".
                ("example/full/^pct:120/0/default.jpg", .status(501)),
                ("example/full/^360,/0/default.jpg", .status(501)),
                ("example/full/^,201/0/default.jpg", .status(501)),
                ("example/full/^360,360/0/default.jpg", .status(501)),
                ("example/full/^!360,360/0/default.jpg", .status(501)),
                ("example/full/^max/0/default.jpg", .status(501)),
                // Nothing enlarged: answered.
                ("example/full/^150,/0/default.jpg", .image(150, 100)),
                ("example/full/^!100,100/0/default.jpg", .image(100, 67)),
                // Syntax errors: 400.
                ("example/full/^pct:abc/0/default.jpg", .status(400)),
                ("example/full/^/0/default.jpg", .status(400)),
                ("example/full/^^150,/0/default.jpg", .status(400)),
                ("example/full/^full/0/default.jpg", .status(400))
            ])
    }

    @Test(
        "4.2: \"For all requests the pixel dimensions of the scaled region MUST NOT be less than 1 pixel or greater than the server-imposed limits. Requests that would generate images of these sizes are errors that SHOULD result in a 400 (Bad Request) status code.\""
    )
    func sizesBelowAPixelOrAboveTheLimitsAre400() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                ("example/full/0,/0/default.jpg", .status(400)),
                ("example/full/,0/0/default.jpg", .status(400)),
                ("example/full/0,0/0/default.jpg", .status(400)),
                ("example/full/!0,10/0/default.jpg", .status(400)),
                ("example/full/pct:0/0/default.jpg", .status(400)),
                // 0.3 × 0.2 pixels; 100 × 0.33 pixels.
                ("example/full/pct:0.1/0/default.jpg", .status(400)),
                ("example/0,0,300,1/100,/0/default.jpg", .status(400)),
                ("example/0,0,300,1/150,/0/default.jpg", .image(150, 1)),
                // Above the limits (4096 × 4096, 8 Mi pixels), upscaling offered or not: 400, not 501.
                ("example/full/^pct:2000/0/default.jpg", .status(400)),
                ("example/full/^5000,/0/default.jpg", .status(400)),
                ("example/full/^4000,4000/0/default.jpg", .status(400))
            ])
        try await OverHTTP.expect(
            try store.server(limits: Self.narrow),
            [
                ("example/full/250,/0/default.jpg", .status(400)),
                ("example/full/200,/0/default.jpg", .image(200, 133))
            ])
    }

    // MARK: 4.3 Rotation

    @Test("4.3: \"A rotation value that is out of range or unsupported SHOULD result in a 400 (Bad Request) status code.\"")
    func unsupportedRotationsAre400() async throws {
        try await OverHTTP.expect(
            try store.server(),
            [
                // Arbitrary angles are optional at level 2 (rotationArbitrary), and not offered.
                ("example/full/max/22.5/default.png", .status(400)),
                ("example/full/max/361/default.jpg", .status(400)),
                ("example/full/max/-90/default.jpg", .status(400)),
                ("example/full/max/90/default.jpg", .image(200, 300)),
                ("example/full/max/!270/default.jpg", .image(200, 300)),
                ("example/full/max/360/default.jpg", .image(300, 200))
            ])
    }

    // MARK: 5 Image information

    @Test(
        "5.7: sizeUpscaling, \"Image sizes prefixed with ^ may be requested\", is listed when offered and not otherwise; \"A server that supports sizeUpscaling MUST specify maxWidth or maxArea.\""
    )
    func sizeUpscalingIsAnnouncedWhenOffered() async throws {
        for offered in [true, false] {
            let answer = try #require(try await OverHTTP.answers(try store.server(sizeUpscaling: offered), ["example/info.json"]).first)
            let info = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            let features = info["extraFeatures"] as? [String] ?? []
            #expect(features.contains("sizeUpscaling") == offered, "\(features)")
            if offered { #expect(info["maxWidth"] is Int && info["maxArea"] is Int) }
        }
    }

    @Test("5.2: \"Servers MUST ensure that sizes specified by any sizes or tiles properties are within any size limits expressed.\"")
    func announcedSizesAndTilesAreWithinTheLimits() async throws {
        let server = try store.server(limits: Self.narrow)
        let answer = try #require(try await OverHTTP.answers(server, ["example/info.json"]).first)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        var paths: [String] = []
        for size in info["sizes"] as? [[String: Int]] ?? [] {
            let (w, h) = (size["width"] ?? 0, size["height"] ?? 0)
            #expect(w <= 200 && h <= 200, "size \(w) × \(h)")
            paths.append("example/full/\(w),\(h)/0/default.jpg")
        }
        for tile in info["tiles"] as? [[String: Any]] ?? [] {
            let width = tile["width"] as? Int ?? 0, height = tile["height"] as? Int ?? width
            #expect(width <= 200 && height <= 200 && width * height <= 1 << 20, "tiles of \(width) × \(height)")
            for factor in tile["scaleFactors"] as? [Int] ?? [] {
                paths.append("example/0,0,\(width * factor),\(height * factor)/\(min(width, 300 / factor)),/0/default.jpg")
            }
        }
        // Every size announced is answered.
        for (path, answer) in zip(paths, try await OverHTTP.answers(server, paths)) {
            #expect(answer.status == 200, "\(path): \(answer.text)")
        }
    }
}
