#if GIF
/// A GIF's animation structure from its blocks alone, without decoding: each frame's delay and
/// rectangle, and the NETSCAPE loop count. One pass over the sub-block lengths, like
/// ``GIFBlocks``, stopped after `maximumFrames + 1` frames so a file of a million one-pixel frames
/// is refused quickly.
struct GIFTimeline {
    /// Each frame's delay in hundredths of a second, and its rectangle's pixels, in order: the
    /// frames whose image descriptor is within the bytes, up to the trailer or damage.
    var delays: [Int] = []
    var framePixels: [Int] = []
    /// The NETSCAPE2.0 (or ANIMEXTS1.0) repeat count as stored, nil when there is none.
    var repeats: Int?
    /// Whether the bytes ended before the trailer, in the middle of a block: the file was cut
    /// short, perhaps before a frame whose descriptor it no longer holds.
    var isCutShort = false

    /// How many times the animation plays, 0 forever (see ``AnimationInfo/loopCount``).
    var loopCount: Int {
        guard let repeats else { return 1 }
        return repeats == 0 ? 0 : repeats + 1
    }

    /// Walks `bytes`, a whole GIF from its signature.
    init(_ bytes: UnsafeRawBufferPointer, maximumFrames: Int) {
        guard bytes.count >= 13 else { return }
        var index = 13
        if bytes[10] & 0x80 != 0 { index += 3 << (Int(bytes[10] & 0x07) + 1) }
        var delay = 0
        func skipSubBlocks() -> Bool { GIFBlocks.skipSubBlocks(bytes, at: &index) }
        // A walk that runs past the last byte (sub-blocks that never end among them) was cut short.
        defer { if index >= bytes.count { isCutShort = true } }
        while index < bytes.count, delays.count <= maximumFrames {
            switch bytes[index] {
            case 0x21:  // extension: introducer, label, sub-blocks
                guard index + 2 < bytes.count else { isCutShort = true; return }
                let label = bytes[index + 1], first = index + 2, length = Int(bytes[first])
                if label == 0xF9, length >= 4, first + 4 < bytes.count {
                    delay = Int(bytes[first + 2]) | Int(bytes[first + 3]) << 8
                } else if label == 0xFF, length == 11, first + 16 < bytes.count, repeats == nil {
                    let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[first + 1...first + 11]), as: UTF8.self)
                    if name == "NETSCAPE2.0" || name == "ANIMEXTS1.0", bytes[first + 12] >= 3, bytes[first + 13] == 1 {
                        repeats = Int(bytes[first + 14]) | Int(bytes[first + 15]) << 8
                    }
                }
                index += 2
                guard skipSubBlocks() else { return }
            case 0x2C:  // image descriptor: 10 bytes, a local palette, the LZW code size, sub-blocks
                guard index + 10 <= bytes.count else { isCutShort = true; return }
                let width = Int(bytes[index + 5]) | Int(bytes[index + 6]) << 8
                let height = Int(bytes[index + 7]) | Int(bytes[index + 8]) << 8
                let flags = bytes[index + 9]
                index += 10
                if flags & 0x80 != 0 { index += 3 << (Int(flags & 0x07) + 1) }
                index += 1
                delays.append(delay)
                framePixels.append(width * height)
                delay = 0  // a graphic control extension applies to the next image only
                guard skipSubBlocks() else { return }
            default:  // the trailer, or damage: nothing more is counted
                return
            }
        }
    }
}
#endif
