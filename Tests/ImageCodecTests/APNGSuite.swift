import FICTestSupport

/// The cases of the public APNG test suite (Philip Taylor's, since ported to the web-platform
/// tests as png/apng), written here at test time from each case's description: the same chunks in
/// the same order, solid 128 × 64 surfaces of the colour the case names, the image data stored
/// uncompressed. For a valid case the suite says what shows (solid green, at the end); for an
/// invalid one, "the default image (solid green) or an error should be displayed", after the
/// APNG specification: "when any error is encountered decoders should discard all subsequent
/// frames, stop the animation, and revert to displaying the default image".
enum APNGSuite {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        /// Whether the suite counts the file as valid.
        let valid: Bool
        let bytes: [UInt8]
        /// Whether its default image (red) is not one of its frames.
        var hidesDefaultImage = false
        var description: String { name }
    }

    static let width = 128, height = 64

    static func surface(_ colour: [UInt8], width: Int = width, height: Int = height) -> [UInt8] {
        let row: [UInt8] = [0] + Array(repeating: colour, count: width).flatMap { $0 }  // filter type None
        return PNGFiles.zlibStored((0..<height).flatMap { _ in row })
    }

    static let green: [UInt8] = [0, 255, 0, 255], red: [UInt8] = [255, 0, 0, 255]

    static func file(_ chunks: [[UInt8]]) -> [UInt8] {
        let header = PNGFiles.bigEndian32(width) + PNGFiles.bigEndian32(height) + [8, 6, 0, 0, 0]
        return PNGFiles.signature + PNGFiles.chunk("IHDR", header) + chunks.flatMap { $0 } + PNGFiles.chunk("IEND", [])
    }

    static func acTL(_ frames: Int, plays: Int = 0) -> [UInt8] {
        PNGFiles.chunk("acTL", PNGFiles.bigEndian32(frames) + PNGFiles.bigEndian32(plays))
    }

    static func fcTL(_ sequence: Int, width: Int = width, height: Int = height) -> [UInt8] {
        // x 0, y 0, delay 100/100 s, APNG_DISPOSE_OP_NONE, APNG_BLEND_OP_SOURCE.
        PNGFiles.chunk(
            "fcTL",
            PNGFiles.bigEndian32(sequence) + PNGFiles.bigEndian32(width) + PNGFiles.bigEndian32(height)
                + PNGFiles.bigEndian32(0) + PNGFiles.bigEndian32(0) + [0, 100, 0, 100, 0, 0])
    }

    static func IDAT(_ data: [UInt8]) -> [UInt8] { PNGFiles.chunk("IDAT", data) }
    static func fdAT(_ sequence: Int, _ data: [UInt8]) -> [UInt8] { PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(sequence) + data) }

    /// Every case, in the suite's order.
    static let cases: [Case] = {
        let g = surface(green), r = surface(red), half = g.count / 2
        let redHalf = surface(red, height: height / 2), redDouble = surface(red, height: height * 2)
        func valid(_ name: String, _ chunks: [[UInt8]]) -> Case {
            // A red IDAT is a default image that is not a frame.
            Case(name: name, valid: true, bytes: file(chunks), hidesDefaultImage: chunks.contains(IDAT(r)))
        }
        func invalid(_ name: String, _ chunks: [[UInt8]]) -> Case { Case(name: name, valid: false, bytes: file(chunks)) }
        return [
            valid("trivial static image", [IDAT(g)]),
            valid("one frame, using the default image", [acTL(1), fcTL(0), IDAT(g)]),
            valid("one frame, ignoring the default image", [acTL(1), IDAT(r), fcTL(0), fdAT(1, g)]),
            valid("basic split IDAT", [IDAT(Array(g[..<half])), IDAT(Array(g[half...]))]),
            valid("split IDAT with a zero-length chunk", [IDAT(Array(g[..<half])), IDAT([]), IDAT(Array(g[half...]))]),
            valid("basic split fdAT", [acTL(1), IDAT(r), fcTL(0), fdAT(1, Array(g[..<half])), fdAT(2, Array(g[half...]))]),
            valid(
                "split fdAT with a zero-length chunk",
                [acTL(1), IDAT(r), fcTL(0), fdAT(1, Array(g[..<half])), fdAT(2, []), fdAT(3, Array(g[half...]))]),
            invalid("missing acTL", [IDAT(g), fcTL(0), fdAT(1, r)]),
            invalid("repeated acTL", [acTL(1), acTL(1), IDAT(g), fcTL(0), fdAT(1, r)]),
            invalid("acTL after IDAT", [IDAT(g), acTL(1), fcTL(0), fdAT(1, r)]),
            invalid("repeated fcTL", [acTL(1), IDAT(g), fcTL(0), fcTL(0), fdAT(1, r)]),
            invalid("missing fdAT", [acTL(2), IDAT(g), fcTL(0), fcTL(1), fdAT(2, r)]),
            invalid("num_frames = 0, no default image", [acTL(0)]),
            invalid("num_frames = 0, ignoring the default image", [acTL(0), IDAT(g)]),
            invalid("num_frames too low", [acTL(1), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(3, r)]),
            invalid("num_frames too high by 1", [acTL(3), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(3, r)]),
            invalid("num_frames too high by 2", [acTL(4), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(3, r)]),
            invalid("num_frames outside the valid range", [acTL(0x8000_0001), IDAT(g), fcTL(0), fdAT(1, r)]),
            invalid("sequence numbers not starting from 0", [acTL(2), IDAT(g), fcTL(1), fdAT(2, r), fcTL(3), fdAT(4, r)]),
            invalid("gap in the sequence", [acTL(2), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(4, r)]),
            invalid("duplicated sequence number", [acTL(2), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(2, r)]),
            invalid("duplicated chunk", [acTL(2), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(3, r), fdAT(3, r)]),
            invalid(
                "reordered fdAT chunks",
                [acTL(2), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(4, Array(r[32...])), fdAT(3, Array(r[..<32]))]),
            invalid(
                "reordered sequence numbers",
                [acTL(2), IDAT(g), fcTL(0), fdAT(1, r), fcTL(2), fdAT(4, Array(r[..<32])), fdAT(3, Array(r[32...]))]),
            invalid("separate fdAT and fcTL sequences", [acTL(2), IDAT(g), fcTL(0), fdAT(0, r), fcTL(1), fdAT(1, r)]),
            invalid(
                "the default image's fcTL size not matching IHDR",
                [acTL(2), fcTL(0, height: height / 2), IDAT(redHalf), fcTL(1), fdAT(2, r)]),
            invalid("fdAT too small", [acTL(1), IDAT(g), fcTL(0), fdAT(1, redHalf)]),
            invalid("fdAT too large", [acTL(1), IDAT(g), fcTL(0), fdAT(1, redDouble)])
        ]
    }()
}
