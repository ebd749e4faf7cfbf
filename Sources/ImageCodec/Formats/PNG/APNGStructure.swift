/// An APNG's animation chunks, walked once before any frame is decoded: `acTL` (frame and play
/// counts), each `fcTL` (rectangle, delay, dispose and blend operations) and where the frame's
/// data chunks start. Every rule browsers hold the chunks to is checked here; a file that breaks
/// one is shown as its default image (``APNGStructure/Walk/still(_:)``), as browsers show it.
struct APNGStructure {
    /// One frame's control chunk.
    struct Frame {
        let rect: FrameRect
        let durationMs: Int
        let dispose: FrameDisposal
        /// Whether the frame is drawn over the canvas (`APNG_BLEND_OP_OVER`) rather than replacing
        /// its rectangle.
        let blendsOver: Bool
        /// Where the chunks after its `fcTL` start.
        let dataOffset: Int
        /// Whether its data is the `IDAT` chunks (the default image is the first frame).
        let usesImageData: Bool
    }

    /// The frames whose `fcTL` is within the bytes, in order.
    var frames: [Frame] = []
    /// `num_plays`: how many times the animation plays, 0 forever.
    var loopCount = 0
    /// The frames `acTL` declares.
    var declared = 0
    /// Whether the bytes end before `IEND`: the file was cut short.
    var cut = false

    /// What the walk found.
    enum Walk {
        case animation(APNGStructure)
        /// Not an animation, or a damaged one: the default image is shown; the reason, if damaged.
        case still(String?)
    }

    /// Walks the PNG `bytes` (from its signature), whose canvas is `width × height`.
    static func walk(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, options: DecodingOptions) throws -> Walk {
        var structure = APNGStructure()
        var declared: Int?
        var sequence = 0
        var seenImageData = false
        var dataChunks = 0  // in the current frame
        var chunks = PNGChunks(bytes)
        func damaged(_ reason: String) -> Walk {
            .still("The APNG's animation chunks are damaged (\(reason)); its default image is shown, as browsers show it.")
        }
        func u32(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).bigEndian) }
        func u16(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self).bigEndian) }
        while let chunk = chunks.next() {
            let (type, length, data) = (chunk.type, chunk.length, chunk.dataOffset)
            let isAnimationChunk = type == PNGChunk.acTL || type == PNGChunk.fcTL || type == PNGChunk.fdAT
            if isAnimationChunk {
                guard chunks.crcMatches(chunk) else { return damaged("a chunk fails its CRC check") }
            }
            switch type {
            case PNGChunk.acTL:
                guard !seenImageData else { return .still(nil) }  // after IDAT: not an APNG
                guard length == 8, declared == nil else { return damaged("a bad acTL chunk") }
                declared = u32(data)
                structure.declared = u32(data)
                structure.loopCount = u32(data + 4)
                guard declared! > 0 else { return damaged("acTL declares no frames") }
                try AnimationLimits.checkFrameCount(declared!, options: options, format: "APNG")
            case PNGChunk.fcTL:
                guard declared != nil else { break }  // without acTL the file is a still PNG
                guard length == 26, u32(data) == sequence else { return damaged("an fcTL chunk out of sequence") }
                guard structure.frames.isEmpty || dataChunks > 0 else { return damaged("a frame without data") }
                sequence += 1
                dataChunks = 0
                let rect = FrameRect(x: u32(data + 12), y: u32(data + 16), width: u32(data + 4), height: u32(data + 8))
                guard rect.width > 0, rect.height > 0, rect.x + rect.width <= width, rect.y + rect.height <= height else {
                    return damaged("a frame outside the canvas")
                }
                let numerator = u16(data + 20), denominator = u16(data + 22)
                let disposeOp = bytes[data + 24], blendOp = bytes[data + 25]
                guard disposeOp <= 2, blendOp <= 1 else { return damaged("an unknown dispose or blend operation") }
                let first = structure.frames.isEmpty
                if !seenImageData {  // the default image is the first frame: it covers the canvas
                    guard first, rect == FrameRect(x: 0, y: 0, width: width, height: height) else {
                        return damaged("a first frame that is not the whole canvas")
                    }
                }
                guard structure.frames.count < declared! else { return damaged("more frames than acTL declares") }
                structure.frames.append(
                    Frame(
                        rect: rect,
                        durationMs: (numerator * 1000 + (denominator == 0 ? 100 : denominator) / 2)
                            / (denominator == 0 ? 100 : denominator),
                        // The first frame's "previous" is the transparent canvas: the spec makes it "background".
                        dispose: disposeOp == 0 ? .none : disposeOp == 1 || first ? .background : .previous,
                        blendsOver: blendOp == 1, dataOffset: chunk.end, usesImageData: !seenImageData))
            case PNGChunk.IDAT:
                if structure.frames.last?.usesImageData == true { dataChunks += 1 }
                seenImageData = true
            case PNGChunk.fdAT:
                guard declared != nil else { break }
                // Four bytes of sequence number and no data is a valid piece (the APNG test
                // suite's "split fdAT with zero-length chunk").
                guard length >= 4, u32(data) == sequence, let last = structure.frames.last, !last.usesImageData else {
                    return damaged("an fdAT chunk out of sequence")
                }
                sequence += 1
                dataChunks += 1
            case PNGChunk.IEND:
                guard let declared else { return .still(nil) }
                guard structure.frames.count == declared, dataChunks > 0 else { return damaged("fewer frames than acTL declares") }
                return .animation(structure)
            default:
                break
            }
        }
        structure.cut = chunks.isCut
        guard declared != nil, !structure.frames.isEmpty else { return .still(nil) }
        return .animation(structure)
    }
}
