/// What the ISO base media file format boxes of a HEIF or AVIF file say before libheif reads it:
/// the `ftyp` brands that recognise the file and tell AVIF from HEIC, and the sample count of an
/// AVIF sequence's track (libheif 1.15 has no sequence API). Every size is checked against the
/// bytes at hand; nothing is allocated from a size the file claims.
enum HEIFBoxes {
    /// A four-character code as the big-endian number it is stored as.
    static func fourCC(_ text: StaticString) -> UInt32 {
        precondition(text.utf8CodeUnitCount == 4)
        let p = text.utf8Start
        return UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    /// Brands of HEVC-coded HEIF (HEIC): still images, collections and sequences.
    static let hevcBrands: Set<UInt32> = [
        fourCC("heic"), fourCC("heix"), fourCC("hevc"), fourCC("heim"), fourCC("heis"), fourCC("hevm"), fourCC("hevs")
    ]
    /// Brands of AV1-coded HEIF (AVIF): a still image, an image sequence.
    static let av1Brands: Set<UInt32> = [fourCC("avif"), fourCC("avis")]
    /// The codec-neutral HEIF brands: an image, a sequence.
    static let neutralBrands: Set<UInt32> = [fourCC("mif1"), fourCC("msf1")]
    /// Brands of files whose primary content is a sequence (a track), not a still item.
    static let sequenceBrands: Set<UInt32> = [fourCC("msf1"), fourCC("hevs"), fourCC("avis")]

    /// The largest `ftyp` box looked at: real ones list a handful of brands in under 64 bytes.
    static let maximumFileTypeBoxSize = 4096

    /// The brands of a file's `ftyp` box.
    struct Brands {
        /// The major brand.
        var major: UInt32
        /// The compatible brands.
        var compatible: [UInt32]

        /// Every brand, the major one first.
        var all: [UInt32] { [major] + compatible }

        /// Whether the image is AV1-coded: an AVIF brand is the major one, or is compatible when
        /// the major brand is not an HEVC one.
        var isAVIF: Bool {
            av1Brands.contains(major) || (!hevcBrands.contains(major) && compatible.contains { av1Brands.contains($0) })
        }

        /// Whether the major brand is a sequence's (its still image, if any, is an item beside the track).
        var isSequence: Bool { sequenceBrands.contains(major) }

        /// Whether libavif plays the file as an AVIF image sequence (its track rather than its
        /// still item): libavif's own rule (`AVIF_DECODER_SOURCE_AUTO`), which browsers follow:
        /// the major brand is `avis`, or `avis` is a compatible brand and the major brand is not
        /// `avif` (which asks for the still image).
        var isAVIFSequence: Bool {
            let avis = fourCC("avis")
            return major == avis || (isAVIF && major != fourCC("avif") && compatible.contains(avis))
        }
    }

    /// Whether `prefix` starts with an `ftyp` box naming a HEIF or AVIF brand: `.needMoreBytes`
    /// while it may still (the major brand is not one, and the compatible ones are not all there).
    static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        // A size that fits the box (16 to 4096 bytes: its first two bytes are 0), then "ftyp".
        let expected: [UInt8?] = [0, 0, nil, nil, 0x66, 0x74, 0x79, 0x70]
        for (index, byte) in expected.enumerated() where index < prefix.count {
            if let byte, prefix[index] != byte { return .noMatch }
        }
        guard prefix.count >= 12 else { return .needMoreBytes }
        let size = Int(readUInt32(prefix, at: 0))
        guard size >= 16, size <= maximumFileTypeBoxSize else { return .noMatch }
        let major = readUInt32(prefix, at: 8)
        if isImageBrand(major) { return .match(offset: 0) }
        guard prefix.count >= size else { return .needMoreBytes }
        return brands(prefix).map { $0.compatible.contains(where: isImageBrand) } == true ? .match(offset: 0) : .noMatch
    }

    /// Whether `brand` is one this package decodes.
    static func isImageBrand(_ brand: UInt32) -> Bool {
        hevcBrands.contains(brand) || av1Brands.contains(brand) || neutralBrands.contains(brand)
    }

    /// The brands of the `ftyp` box `bytes` start with, or `nil` when there is no whole one.
    static func brands(_ bytes: UnsafeRawBufferPointer) -> Brands? {
        guard bytes.count >= 16, readUInt32(bytes, at: 4) == fourCC("ftyp") else { return nil }
        let size = Int(readUInt32(bytes, at: 0))
        guard size >= 16, size <= min(bytes.count, maximumFileTypeBoxSize) else { return nil }
        let compatible = stride(from: 16, to: size - 3, by: 4).map { readUInt32(bytes, at: $0) }
        return Brands(major: readUInt32(bytes, at: 8), compatible: compatible)
    }

    /// The number of samples (frames) of the first picture track of an image sequence (`moov` →
    /// `trak` with a `pict` handler → `stsz`), or `nil` when the file has none or it lies beyond `bytes`.
    static func sequenceFrameCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let movie = children(of: 0..<bytes.count, in: bytes).first(where: { $0.type == fourCC("moov") }) else { return nil }
        for track in children(of: movie.payload, in: bytes) where track.type == fourCC("trak") {
            guard let media = child(fourCC("mdia"), of: track.payload, in: bytes),
                let handler = child(fourCC("hdlr"), of: media, in: bytes), handler.count >= 12,
                readUInt32(bytes, at: handler.lowerBound + 8) == fourCC("pict"),
                let information = child(fourCC("minf"), of: media, in: bytes),
                let table = child(fourCC("stbl"), of: information, in: bytes),
                let sizes = child(fourCC("stsz"), of: table, in: bytes), sizes.count >= 12
            else { continue }
            return Int(readUInt32(bytes, at: sizes.lowerBound + 8))
        }
        return nil
    }

    /// How many time-to-sample entries (`stts`: a run of samples of one duration each) the
    /// tracks of the file's movie hold together (`moov` → `trak` → `mdia` → `minf` → `stbl` →
    /// `stts`), each table counted as far as its box holds entries; 0 without a movie.
    static func timeToSampleEntryCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let movie = children(of: 0..<bytes.count, in: bytes).first(where: { $0.type == fourCC("moov") }) else { return 0 }
        var total = 0
        for track in children(of: movie.payload, in: bytes) where track.type == fourCC("trak") {
            guard let media = child(fourCC("mdia"), of: track.payload, in: bytes),
                let information = child(fourCC("minf"), of: media, in: bytes),
                let table = child(fourCC("stbl"), of: information, in: bytes),
                let times = child(fourCC("stts"), of: table, in: bytes), times.count >= 8
            else { continue }
            // Version and flags, the entry count, then 8 bytes an entry.
            total += min(Int(readUInt32(bytes, at: times.lowerBound + 4)), (times.count - 8) / 8)
        }
        return total
    }

    /// A box: its type and where its payload lies.
    struct Box {
        var type: UInt32
        var payload: Range<Int>
    }

    /// The boxes inside `range`, up to the first that does not fit in it.
    static func children(of range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> [Box] {
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(readUInt32(bytes, at: offset))
            let type = readUInt32(bytes, at: offset + 4)
            var header = 8
            if size == 1 {  // a 64-bit size follows the type
                guard offset + 16 <= range.upperBound else { break }
                let large = UInt64(readUInt32(bytes, at: offset + 8)) << 32 | UInt64(readUInt32(bytes, at: offset + 12))
                guard large <= UInt64(range.upperBound - offset) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {  // to the end of the enclosing box
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else { break }
            boxes.append(Box(type: type, payload: (offset + header)..<(offset + size)))
            offset += size
        }
        return boxes
    }

    /// The payload of the first box of `type` inside `range`.
    static func child(_ type: UInt32, of range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        children(of: range, in: bytes).first { $0.type == type }?.payload
    }

    /// The big-endian 32-bit number at `offset` (which the caller has checked lies within `bytes`).
    static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
