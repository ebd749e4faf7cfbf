/// What a file's header says about its colours, read by a byte parser that trusts no length
/// (see ``jpeg(_:)``, ``png(_:)``, ``webp(_:)``): a ``ColorDescription`` for
/// ``ColorConverter/make(for:layout:warnings:)``, plus what a decoder needs besides.
package struct EmbeddedColor: Sendable, Hashable {
    /// How the pixels are to be understood; ``ColorDescription/untagged`` when the file says nothing usable.
    package var description: ColorDescription = .untagged
    /// For JPEG: the transform flag of an Adobe `APP14` marker (0: none, RGB or CMYK; 1: YCbCr;
    /// 2: YCCK), nil when there is no such marker (or for other formats). A JPEG with the marker
    /// stores CMYK inverted (``ColorConverter/Layout/cmykInverted8``), as does libjpeg's output for YCCK.
    package var adobeTransform: Int?
    /// Whether the parser saw everything that can carry colour information (a JPEG's markers up to
    /// its first scan, a PNG's chunks up to the image data, a WebP's chunks up to its image).
    /// False for a file cut short before that: an incremental decoder parses again with more bytes.
    package var isComplete = false
    /// What was wrong with the colour information and was ignored (an ICC profile whose pieces
    /// do not fit together, a chunk with a bad checksum, …).
    package var warnings: [String] = []

    /// Nothing known.
    package init() {}
}

/// Bounds-checked big- and little-endian reads for the parsers.
extension UnsafeRawBufferPointer {
    /// The big-endian 16-bit value at `offset`, or nil when it is not inside.
    func bigEndian16(at offset: Int) -> Int? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return Int(self[offset]) << 8 | Int(self[offset + 1])
    }

    /// The big-endian 32-bit value at `offset`, or nil when it is not inside.
    func bigEndian32(at offset: Int) -> Int? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return Int(self[offset]) << 24 | Int(self[offset + 1]) << 16 | Int(self[offset + 2]) << 8 | Int(self[offset + 3])
    }

    /// The little-endian 32-bit value at `offset`, or nil when it is not inside.
    func littleEndian32(at offset: Int) -> Int? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return Int(self[offset]) | Int(self[offset + 1]) << 8 | Int(self[offset + 2]) << 16 | Int(self[offset + 3]) << 24
    }

    /// Whether the bytes at `offset` are `expected`.
    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset <= count - expected.count else { return false }
        return expected.indices.allSatisfy { self[offset + $0] == expected[$0] }
    }

    /// A copy of `count` bytes at `offset` (both already checked by the caller).
    func copy(_ offset: Int, _ length: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: self[offset..<(offset + length)]))
    }
}
