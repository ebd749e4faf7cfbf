#if GIF
/// Walks a GIF's block structure in memory without decoding anything: whether the first frame's
/// image data is all there, and how many frames follow. One pass over the sub-block lengths (a
/// byte read per 256 at most), no allocation, stopped after ``maximumCountedFrames`` frames, so a
/// file of a hundred thousand one-pixel frames cannot make a header read slow or large.
enum GIFBlocks {
    /// The most frames counted for ``ImageInfo/frameCount``; an animation with more reports this many.
    static let maximumCountedFrames = 10_000

    /// What the walk found.
    struct Walk: Equatable {
        /// Whether the first frame's image data ends (with its block terminator) within the bytes.
        var firstFrameComplete: Bool
        /// The frames seen, the first included: those whose image descriptor is within the bytes,
        /// up to a damaged block, the trailer or ``maximumCountedFrames``.
        var frames: Int
    }

    /// Skips the data sub-blocks starting at `index`, up to and including their terminator;
    /// false if they run past the end of `bytes`.
    static func skipSubBlocks(_ bytes: UnsafeRawBufferPointer, at index: inout Int) -> Bool {
        while index < bytes.count {
            let length = Int(bytes[index])
            index += 1
            if length == 0 { return true }
            index += length
        }
        return false
    }

    /// Walks `bytes` from `offset`, the start of the first frame's image data (after its LZW
    /// minimum code size).
    static func walk(_ bytes: UnsafeRawBufferPointer, firstFrameDataAt offset: Int) -> Walk {
        var index = offset
        func skipSubBlocks() -> Bool { Self.skipSubBlocks(bytes, at: &index) }
        guard skipSubBlocks() else { return Walk(firstFrameComplete: false, frames: 1) }
        var frames = 1
        while index < bytes.count, frames < maximumCountedFrames {
            switch bytes[index] {
            case 0x21:  // extension: introducer, label, sub-blocks
                index += 2
                guard skipSubBlocks() else { return Walk(firstFrameComplete: true, frames: frames) }
            case 0x2C:  // image descriptor: 10 bytes, a local palette, the LZW code size, sub-blocks
                guard index + 10 <= bytes.count else { return Walk(firstFrameComplete: true, frames: frames) }
                let flags = bytes[index + 9]
                index += 10
                if flags & 0x80 != 0 { index += 3 << (Int(flags & 0x07) + 1) }
                index += 1
                frames += 1
                guard skipSubBlocks() else { return Walk(firstFrameComplete: true, frames: frames) }
            default:  // the trailer, or damage: nothing more is counted
                return Walk(firstFrameComplete: true, frames: frames)
            }
        }
        return Walk(firstFrameComplete: true, frames: frames)
    }
}
#endif
