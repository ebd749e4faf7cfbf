#if GIF
/// A GIF's first frame on its canvas, as Chromium shows it (its GIF decoder is Wuffs, used with
/// its default policies):
///
/// - the canvas is the logical screen, grown to hold the first frame when that frame reaches
///   beyond it (Pillow does the same); later frames are not looked at;
/// - pixels outside the first frame are transparent;
/// - the palette is the frame's own, else the global one; indices past its end are opaque black
///   (so is every index when there is no palette at all), and the index the frame's graphic control
///   extension names is transparent;
/// - interlaced rows, which giflib hands out in stored order, go to their rows.
///
/// Colours pass through ``SamplePipeline`` once, as a 256-entry table (GIF declares no colour
/// space: untagged, sRGB).
struct GIFCanvas {
    /// The canvas size.
    let width: Int, height: Int
    /// The first frame.
    let frame: GIFReader.Frame
    /// Whether the canvas has transparent pixels: the frame names a transparent index, or does not
    /// cover the canvas.
    let hasAlpha: Bool
    /// The pixel (premultiplied BGRA, or BGRX when opaque) of every palette index.
    let colors: [UInt32]

    /// The canvas of `frame`.
    init(_ frame: GIFReader.Frame) {
        self.frame = frame
        width = max(frame.screenWidth, frame.left + frame.width)
        height = max(frame.screenHeight, frame.top + frame.height)
        hasAlpha =
            frame.transparentIndex != nil
            || !(frame.left == 0 && frame.top == 0 && frame.width == width && frame.height == height)
        colors = Self.colors(of: frame)
    }

    /// The pixel of every palette index of `frame` (premultiplied BGRA): its palette, opaque
    /// black past its end, and its transparent index transparent. Every frame of an animation is
    /// coloured by this one table (see ``GIFAnimation``).
    static func colors(of frame: GIFReader.Frame) -> [UInt32] {
        var samples = [UInt8](repeating: 0, count: 256 * 4)
        for index in 0..<256 {
            let known = index * 3 + 2 < frame.palette.count
            samples[index * 4] = known ? frame.palette[index * 3] : 0
            samples[index * 4 + 1] = known ? frame.palette[index * 3 + 1] : 0
            samples[index * 4 + 2] = known ? frame.palette[index * 3 + 2] : 0
            samples[index * 4 + 3] = index == frame.transparentIndex ? 0 : 255
        }
        var warnings: [String] = []
        let pipeline = SamplePipeline(layout: .rgba8, color: .untagged, warnings: &warnings)
        var colors = [UInt32](repeating: 0, count: 256)
        samples.withUnsafeBytes { source in
            colors.withUnsafeMutableBytes { pipeline.convert(source.baseAddress!, to: $0.baseAddress!, count: 256) }
        }
        return colors
    }

    /// The pixel rows that damage left undecoded get: transparent, or opaque black in an image
    /// without alpha (where transparency cannot be shown).
    var undecoded: UInt32 { hasAlpha ? 0 : 0xFF00_0000 }

    /// The header facts.
    func info(frameCount: Int) -> ImageInfo {
        ImageInfo(
            format: .gif, width: width, height: height, orientation: .up, hasAlpha: hasAlpha,
            color: .untagged, bitsPerSample: 8, frameCount: frameCount)
    }

    /// Reads the frame's rows from `reader` (positioned at its image data) and hands the canvas
    /// rows out top to bottom: each is written where `destination(y)` says (`width` pixels), then
    /// given to `completed`. An interlaced frame's indices are gathered whole first.
    ///
    /// Damage inside the image data (bad LZW codes, data that ends before the frame's last pixel)
    /// throws when `strict`; otherwise the rows before it are kept, the rest get ``undecoded``, and
    /// the damage is returned as a warning. Data that ends because the file does (it was cut
    /// short) always throws.
    func decodeRows(
        _ reader: GIFReader, strict: Bool,
        destination: (Int) throws -> UnsafeMutablePointer<UInt32>,
        completed: (Int, UnsafeMutablePointer<UInt32>) throws -> Void
    ) throws -> [String] {
        var warnings: [String] = []
        let frameRows = frame.width > 0 ? frame.height : 0
        // Which frame rows were decoded, and their indices: one row at a time when stored in order,
        // every row first when interlaced.
        var decodedRows = 0
        func readFailed(atStoredRow row: Int) throws {
            let error = reader.failure()
            guard !strict, error.code == .corruptData else { throw error }
            warnings.append(
                "\(error.message) Rows from \(row + 1) of the first frame's \(frame.height) (in stored order) are left \(hasAlpha ? "transparent" : "black")."
            )
        }
        let indices = try LargeBufferPool.allocate(byteCount: frame.interlaced ? frame.width * frameRows : frame.width, zeroed: false)
        let line = indices.base.assumingMemoryBound(to: UInt8.self)
        var rowOfStored: [Int] = []
        if frame.interlaced {
            rowOfStored = Self.interlacedOrder(height: frameRows)
            for stored in 0..<frameRows {
                do {
                    try reader.readLine(line + rowOfStored[stored] * frame.width, count: frame.width)
                } catch {
                    try readFailed(atStoredRow: stored)
                    break
                }
                decodedRows += 1
            }
        }
        // Frame rows that hold pixels: for an interlaced frame, the first `decodedRows` of the order.
        var interlacedDone = [Bool](repeating: false, count: frame.interlaced ? frameRows : 0)
        for stored in 0..<decodedRows { interlacedDone[rowOfStored[stored]] = true }
        var failed = false
        try colors.withUnsafeBufferPointer { table in
            for y in 0..<height {
                let out = try destination(y)
                let frameRow = y - frame.top
                guard frameRow >= 0, frameRow < frameRows else {
                    out.initialize(repeating: 0, count: width)
                    try completed(y, out)
                    continue
                }
                var source: UnsafeMutablePointer<UInt8>?
                if frame.interlaced {
                    if interlacedDone[frameRow] { source = line + frameRow * frame.width }
                } else if !failed {
                    do {
                        try reader.readLine(line, count: frame.width)
                        source = line
                    } catch {
                        try readFailed(atStoredRow: frameRow)
                        failed = true
                    }
                }
                out.initialize(repeating: 0, count: frame.left)
                let span = out + frame.left
                if let source {
                    for x in 0..<frame.width { span[x] = table[Int(source[x])] }
                } else {
                    span.initialize(repeating: undecoded, count: frame.width)
                }
                (span + frame.width).initialize(repeating: 0, count: width - frame.left - frame.width)
                try completed(y, out)
            }
        }
        return warnings
    }

    /// The frame row of each stored row of an interlaced image: passes start at rows 0, 4, 2, 1 and
    /// step 8, 8, 4, 2.
    static func interlacedOrder(height: Int) -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(height)
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            order += stride(from: start, to: height, by: step)
        }
        return order
    }
}
#endif
