/// The marker structure of JPEG files, walked at test time, shared by the decoder's and the tile
/// pyramids' tests: to edit header segments, and to find where each scan of a progressive file
/// starts.
public enum JPEGFiles {
    /// One marker segment: its marker (the byte after `FF`), where it starts, and its length with
    /// the two marker bytes.
    public struct Segment: Sendable, Equatable {
        /// The byte after `FF` (`0xDA` for SOS, `0xDB` for DQT, …).
        public let marker: UInt8
        /// The offset of its `FF`.
        public let offset: Int
        /// Its bytes, marker included (a scan's entropy-coded data is not).
        public let length: Int
    }

    /// Every marker segment after SOI, in order, up to EOI: the segments are skipped by their
    /// lengths, and a scan's entropy-coded data up to the next marker that is neither a stuffed
    /// `FF 00` nor a restart. Stops where a marker was due and none is (a damaged or cut file).
    public static func segments(_ bytes: [UInt8]) -> [Segment] {
        var segments: [Segment] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xD9 {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            segments.append(Segment(marker: marker, offset: offset, length: length + 2))
            offset += length + 2
            if marker == 0xDA {
                while offset + 1 < bytes.count,
                    !(bytes[offset] == 0xFF && bytes[offset + 1] != 0 && !(0xD0...0xD7).contains(bytes[offset + 1]))
                {
                    offset += 1
                }
            }
        }
        return segments
    }

    /// The offset of each scan's SOS marker.
    public static func scanOffsets(_ bytes: [UInt8]) -> [Int] {
        segments(bytes).filter { $0.marker == 0xDA }.map(\.offset)
    }
}
