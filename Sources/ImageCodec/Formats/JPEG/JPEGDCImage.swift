import CImageCodecSupport
import Glibc

/// A progressive JPEG at scale 1/8 from its DC coefficients alone.
///
/// At 1/8 each output pixel of a luma block is that block's DC coefficient (libjpeg's 1 × 1
/// inverse DCT), and a progressive file sends every DC coefficient in scans of its own, before or
/// between the AC scans that make up most of its bytes. libjpeg cannot decode such a file without
/// its whole coefficient array (128 bytes per 8 × 8 block: 256 MB for a 42-megapixel 4:4:4 photo)
/// even when it reads only the first scans. This reads the DC scans (first and refinement) into 2
/// bytes per block, skips the AC scans' bytes without decoding them, and makes the same pixels as
/// libjpeg's 1/8 decode for luma and 4:4:4 chroma; subsampled chroma is the block's mean, where
/// libjpeg's 2 × 2 inverse DCT adds a little detail.
///
/// It takes only what it is sure of: a Huffman-coded 8-bit progressive frame of grey or YCbCr
/// (the colour space libjpeg chose), luma at full sampling and chroma at whole fractions of it,
/// every table defined, every restart marker in place, every DC scan in a consistent progression,
/// and an end-of-image marker. Anything else — damage included — returns nil, and libjpeg decodes
/// the file as before, with its errors and warnings.
struct JPEGDCImage {
    /// The output size: the image's at 1/8, rounded up (libjpeg's).
    let width: Int
    let height: Int
    private let components: [Component]
    /// Every component's DC coefficients, one after another.
    private let planes: Planes

    /// Memory of its own for the coefficients: written in the decoder's inner loop without the
    /// copy-on-write checks an array in an array of structs costs on every store.
    private final class Planes: @unchecked Sendable {
        let base: UnsafeMutablePointer<Int16>
        init(count: Int) {
            base = .allocate(capacity: max(count, 1))
            base.initialize(repeating: 0, count: max(count, 1))
        }
        deinit { base.deallocate() }
    }

    private struct Component {
        var id: UInt8
        var h: Int
        var v: Int
        var tableIndex: Int
        /// The DC quantiser, taken when the component's first scan starts (libjpeg latches it then).
        var quantizer: Int?
        /// Blocks of the component in the image (non-interleaved scans cover these), and across
        /// as the MCUs of an interleaved scan cover them (a row of its plane).
        var blocksWide = 0
        var blocksHigh = 0
        var paddedWide = 0
        /// The point transform of the DC bits received so far (nil: no DC scan yet).
        var pointTransform: Int?
        /// Where its coefficients start in ``Planes``.
        var offset = 0
    }

    /// Whether a decode of the JPEG with `header` at 1/`denominator` is one to try this way: a
    /// progressive, Huffman-coded file of grey or YCbCr (libjpeg's `J_COLOR_SPACE` 1 or 3) at 1/8.
    static func applies(to header: fic_jpeg_header, denominator: Int) -> Bool {
        denominator == 8 && header.progressive != 0 && header.arithmetic == 0 && (header.color_space == 1 || header.color_space == 3)
    }

    /// Decodes `bytes`, a whole JPEG stream with `header` (see ``applies(to:denominator:)``); nil
    /// when it is not one this path takes.
    static func decode(_ bytes: UnsafeRawBufferPointer, header: fic_jpeg_header) -> JPEGDCImage? {
        var parser = Parser(bytes: bytes, grey: header.color_space == 1)
        return parser.run()
    }

    /// Writes output row `y` as BGRX (libjpeg's integer YCbCr conversion) into `row`.
    func writeRow(_ y: Int, into row: UnsafeMutablePointer<UInt32>) {
        let dc = planes.base
        let luma = components[0]
        let lumaRow = y * luma.paddedWide
        let q0 = luma.quantizer ?? 0
        if components.count == 1 {
            for x in 0..<width {
                let g = UInt32(Self.sample(dc[luma.offset + lumaRow + x], q0))
                row[x] = g | g << 8 | g << 16 | 0xFF00_0000
            }
            return
        }
        let cb = components[1], cr = components[2]
        let (fxb, fyb) = (luma.h / cb.h, luma.v / cb.v), (fxr, fyr) = (luma.h / cr.h, luma.v / cr.v)
        let cbRow = (y / fyb) * cb.paddedWide, crRow = (y / fyr) * cr.paddedWide
        let qb = cb.quantizer ?? 0, qr = cr.quantizer ?? 0
        for x in 0..<width {
            let yy = Self.sample(dc[luma.offset + lumaRow + x], q0)
            let b = Self.sample(dc[cb.offset + cbRow + x / fxb], qb) - 128
            let r = Self.sample(dc[cr.offset + crRow + x / fxr], qr) - 128
            // jdcolor.c's tables: SCALEBITS 16, FIX(x) rounded, ONE_HALF added before the shifts.
            let red = yy + ((91881 * r + 32768) >> 16)
            let green = yy + ((-22554 * b + 32768 - 46802 * r) >> 16)
            let blue = yy + ((116130 * b + 32768) >> 16)
            row[x] = UInt32(Self.clamp(blue)) | UInt32(Self.clamp(green)) << 8 | UInt32(Self.clamp(red)) << 16 | 0xFF00_0000
        }
    }

    /// A block's sample at 1/8: its dequantised DC coefficient descaled by 8 and centred
    /// (jidctred.c's `jpeg_idct_1x1`).
    @inline(__always)
    private static func sample(_ dc: Int16, _ q: Int) -> Int {
        clamp(((Int(dc) * q + 4) >> 3) + 128)
    }

    @inline(__always)
    private static func clamp(_ v: Int) -> Int { min(max(v, 0), 255) }

    /// One Huffman table: codes of up to ``lookaheadBits`` bits found in one table look-up, longer
    /// ones a bit at a time. A class owning plain memory, so that the decoder's inner loop reads it
    /// without reference counting (see ``Parser/Lookup``).
    private final class HuffmanTable {
        static let lookaheadBits = 9
        /// By the next ``lookaheadBits`` bits: the code's length << 8 | its value; 0 when longer.
        let lookahead = UnsafeMutablePointer<UInt16>.allocate(capacity: 1 << lookaheadBits)
        /// By code length: the largest code of that length (-1: none), and what to add to a code
        /// to find its index among the values.
        let maxCode = UnsafeMutablePointer<Int>.allocate(capacity: 17)
        let offset = UnsafeMutablePointer<Int>.allocate(capacity: 17)
        let values = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        let valueCount: Int

        /// The table of `counts` (codes of each length 1…16) and `values` (at most 256); nil when
        /// the counts overfill the code space (libjpeg refuses those).
        init?(counts: [Int], values: [UInt8]) {
            lookahead.initialize(repeating: 0, count: 1 << Self.lookaheadBits)
            maxCode.initialize(repeating: -1, count: 17)
            offset.initialize(repeating: 0, count: 17)
            self.values.initialize(repeating: 0, count: 256)
            valueCount = values.count
            for (i, v) in values.enumerated() { self.values[i] = v }
            var code = 0, index = 0
            for length in 1...16 {
                let n = counts[length - 1]
                offset[length] = index - code
                if n > 0 {
                    guard code + n <= 1 << length else { return nil }
                    if length <= Self.lookaheadBits {
                        let shift = Self.lookaheadBits - length
                        for k in 0..<n {
                            for fill in 0..<(1 << shift) {
                                lookahead[(code + k) << shift | fill] = UInt16(length << 8) | UInt16(values[index + k])
                            }
                        }
                    }
                    code += n
                    index += n
                    maxCode[length] = code - 1
                }
                code <<= 1
            }
        }

        deinit {
            lookahead.deallocate()
            maxCode.deallocate()
            offset.deallocate()
            values.deallocate()
        }
    }

    /// Walks the markers and decodes the DC scans.
    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        let grey: Bool
        var position = 2
        var quantizers = [Int?](repeating: nil, count: 4)
        var dcTables = [HuffmanTable?](repeating: nil, count: 4)
        var restartInterval = 0
        var components: [Component] = []
        var planes = Planes(count: 0)
        var imageWidth = 0, imageHeight = 0
        var maxH = 1, maxV = 1
        /// MCUs of an interleaved scan across and down.
        var mcusWide = 0, mcusHigh = 0
        // The entropy-coded data's bit reader.
        var bitBuffer: UInt64 = 0
        var bitCount = 0
        var hitMarker = false

        init(bytes: UnsafeRawBufferPointer, grey: Bool) {
            self.bytes = bytes
            self.grey = grey
        }

        mutating func run() -> JPEGDCImage? {
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
            while true {
                guard let marker = nextMarker() else { return nil }
                switch marker {
                case 0xD9:  // end of image
                    guard !components.isEmpty, components.allSatisfy({ $0.pointTransform != nil }) else { return nil }
                    return JPEGDCImage(width: (imageWidth + 7) / 8, height: (imageHeight + 7) / 8, components: components, planes: planes)
                case 0xC2:
                    guard components.isEmpty, let segment = segment(), readFrame(segment) else { return nil }
                case 0xC4:
                    guard let segment = segment(), readHuffmanTables(segment) else { return nil }
                case 0xDB:
                    guard let segment = segment(), readQuantizers(segment) else { return nil }
                case 0xDD:
                    guard let segment = segment(), segment.count == 2 else { return nil }
                    restartInterval = Int(segment[0]) << 8 | Int(segment[1])
                case 0xDA:
                    guard !components.isEmpty, let segment = segment(), scan(segment) else { return nil }
                case 0xE0...0xEF, 0xFE:  // application data and comments
                    guard segment() != nil else { return nil }
                default:  // another frame type, DNL, a stray restart or SOI: libjpeg's to judge
                    return nil
                }
            }
        }

        /// The code of the marker at `position` (fill bytes skipped); nil when there is none there.
        mutating func nextMarker() -> UInt8? {
            guard position < bytes.count, bytes[position] == 0xFF else { return nil }
            while position < bytes.count && bytes[position] == 0xFF { position += 1 }
            guard position < bytes.count, bytes[position] != 0 else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        /// The payload of the segment at `position` (after its length), which it moves past.
        mutating func segment() -> UnsafeRawBufferPointer? {
            guard position + 2 <= bytes.count else { return nil }
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            guard length >= 2, position + length <= bytes.count else { return nil }
            defer { position += length }
            return UnsafeRawBufferPointer(rebasing: bytes[(position + 2)..<(position + length)])
        }

        mutating func readFrame(_ s: UnsafeRawBufferPointer) -> Bool {
            guard s.count >= 6, s[0] == 8 else { return false }
            imageHeight = Int(s[1]) << 8 | Int(s[2])
            imageWidth = Int(s[3]) << 8 | Int(s[4])
            let count = Int(s[5])
            guard imageWidth > 0, imageHeight > 0, count == (grey ? 1 : 3), s.count == 6 + 3 * count else { return false }
            for i in 0..<count {
                let factors = s[7 + 3 * i]
                let h = Int(factors >> 4), v = Int(factors & 15), table = Int(s[8 + 3 * i])
                guard (1...4).contains(h), (1...4).contains(v), table < 4 else { return false }
                components.append(Component(id: s[6 + 3 * i], h: h, v: v, tableIndex: table))
            }
            maxH = components.map(\.h).max()!
            maxV = components.map(\.v).max()!
            // Luma at full sampling, chroma at a whole fraction of it.
            guard components[0].h == maxH, components[0].v == maxV,
                components.allSatisfy({ maxH % $0.h == 0 && maxV % $0.v == 0 }),
                Set(components.map(\.id)).count == count
            else { return false }
            mcusWide = (imageWidth + 8 * maxH - 1) / (8 * maxH)
            mcusHigh = (imageHeight + 8 * maxV - 1) / (8 * maxV)
            var total = 0
            for i in components.indices {
                let c = components[i]
                components[i].blocksWide = (imageWidth * c.h + 8 * maxH - 1) / (8 * maxH)
                components[i].blocksHigh = (imageHeight * c.v + 8 * maxV - 1) / (8 * maxV)
                components[i].paddedWide = mcusWide * c.h
                components[i].offset = total
                total += mcusWide * c.h * mcusHigh * c.v
            }
            planes = Planes(count: total)
            return true
        }

        mutating func readHuffmanTables(_ s: UnsafeRawBufferPointer) -> Bool {
            var p = 0
            while p < s.count {
                guard p + 17 <= s.count else { return false }
                let kind = s[p] >> 4, index = Int(s[p] & 15)
                guard kind <= 1, index < 4 else { return false }
                let counts = (0..<16).map { Int(s[p + 1 + $0]) }
                let total = counts.reduce(0, +)
                guard total <= 256, p + 17 + total <= s.count else { return false }
                let values = Array(s[(p + 17)..<(p + 17 + total)])
                if kind == 0 {
                    guard let table = HuffmanTable(counts: counts, values: values) else { return false }
                    dcTables[index] = table
                }
                p += 17 + total
            }
            return true
        }

        mutating func readQuantizers(_ s: UnsafeRawBufferPointer) -> Bool {
            var p = 0
            while p < s.count {
                let wide = s[p] >> 4, index = Int(s[p] & 15)
                let size = wide == 0 ? 64 : 128
                guard wide <= 1, index < 4, p + 1 + size <= s.count else { return false }
                // The DC quantiser is the first entry in either order.
                quantizers[index] = wide == 0 ? Int(s[p + 1]) : Int(s[p + 1]) << 8 | Int(s[p + 2])
                p += 1 + size
            }
            return true
        }

        /// One scan: a DC scan is decoded, an AC scan's data skipped.
        mutating func scan(_ s: UnsafeRawBufferPointer) -> Bool {
            guard s.count >= 1 else { return false }
            let count = Int(s[0])
            guard (1...4).contains(count), s.count == 4 + 2 * count else { return false }
            var members: [(component: Int, table: Int)] = []
            for i in 0..<count {
                guard let c = components.firstIndex(where: { $0.id == s[1 + 2 * i] }), !members.contains(where: { $0.component == c })
                else { return false }
                members.append((c, Int(s[2 + 2 * i] >> 4)))
            }
            let start = s[1 + 2 * count], end = s[2 + 2 * count]
            let high = Int(s[3 + 2 * count] >> 4), low = Int(s[3 + 2 * count] & 15)
            guard start == 0 else {
                // An AC scan: a component's DC must come first (libjpeg warns of the rest).
                guard members.allSatisfy({ components[$0.component].pointTransform != nil }) else { return false }
                return skipEntropyData()
            }
            guard end == 0, low <= 13 else { return false }
            for m in members {
                // libjpeg latches a component's quantiser when its first scan starts.
                if components[m.component].quantizer == nil {
                    guard let q = quantizers[components[m.component].tableIndex] else { return false }
                    components[m.component].quantizer = q
                }
                if high == 0 {
                    guard components[m.component].pointTransform == nil, m.table < 4, dcTables[m.table] != nil else { return false }
                } else {
                    guard components[m.component].pointTransform == high, low == high - 1 else { return false }
                }
                components[m.component].pointTransform = low
            }
            if count > 1 {
                guard members.reduce(0, { $0 + components[$1.component].h * components[$1.component].v }) <= 10 else { return false }
            }
            return decodeDC(members, refine: high != 0, pointTransform: low)
        }

        /// What the inner loop reads of a member of a scan: plain values and pointers, valid while
        /// ``decodeDC(_:refine:pointTransform:)`` holds the tables and planes they point into.
        struct Lookup {
            var base: UnsafeMutablePointer<Int16>
            var h: Int
            var v: Int
            var wide: Int
            /// The table's parts (nil in a refinement scan, which reads no codes).
            var lookahead: UnsafePointer<UInt16>?
            var maxCode: UnsafePointer<Int>?
            var offset: UnsafePointer<Int>?
            var values: UnsafePointer<UInt8>?
            var valueCount: Int
        }

        /// Decodes the entropy-coded data of a DC scan of `members`.
        mutating func decodeDC(_ members: [(component: Int, table: Int)], refine: Bool, pointTransform: Int) -> Bool {
            let tables = members.map { dcTables[$0.table] }
            return withExtendedLifetime((tables, planes)) {
                decodeDC(members, tables: tables, refine: refine, pointTransform: pointTransform)
            }
        }

        private mutating func decodeDC(
            _ members: [(component: Int, table: Int)], tables: [HuffmanTable?], refine: Bool, pointTransform: Int
        ) -> Bool {
            bitBuffer = 0
            bitCount = 0
            hitMarker = false
            let interleaved = members.count > 1
            let c0 = components[members[0].component]
            let across = interleaved ? mcusWide : c0.blocksWide, down = interleaved ? mcusHigh : c0.blocksHigh
            // A refinement scan reads no codes; a first scan has every member's table (``scan(_:)``).
            guard refine || tables.allSatisfy({ $0 != nil }) else { return false }
            let plans = zip(members, tables).map { m, table in
                let c = components[m.component]
                return Lookup(
                    base: planes.base + c.offset, h: interleaved ? c.h : 1, v: interleaved ? c.v : 1, wide: c.paddedWide,
                    lookahead: table.map { UnsafePointer($0.lookahead) }, maxCode: table.map { UnsafePointer($0.maxCode) },
                    offset: table.map { UnsafePointer($0.offset) }, values: table.map { UnsafePointer($0.values) },
                    valueCount: table?.valueCount ?? 0)
            }
            return decodeMCUs(plans, across: across, down: down, refine: refine, pointTransform: pointTransform)
        }

        /// Decodes `down` rows of `across` MCUs (blocks, in a scan of one component).
        private mutating func decodeMCUs(_ plans: [Lookup], across: Int, down: Int, refine: Bool, pointTransform: Int) -> Bool {
            var predictors = [Int](repeating: 0, count: plans.count)
            let bit = Int16(truncatingIfNeeded: 1 << pointTransform)
            var untilRestart = restartInterval, restartNumber = 0
            for my in 0..<down {
                for mx in 0..<across {
                    if restartInterval > 0 && untilRestart == 0 {
                        guard readRestart(restartNumber) else { return false }
                        restartNumber = (restartNumber + 1) & 7
                        untilRestart = restartInterval
                        for i in predictors.indices { predictors[i] = 0 }
                    }
                    untilRestart -= 1
                    for i in plans.indices {
                        let plan = plans[i]
                        for by in 0..<plan.v {
                            let row = plan.base + (my * plan.v + by) * plan.wide + mx * plan.h
                            for bx in 0..<plan.h {
                                if refine {
                                    if readBits(1) != 0 { row[bx] |= bit }
                                } else {
                                    guard let size = decodeHuffman(plan), size <= 15 else { return false }
                                    let bits = readBits(Int(size))
                                    let difference = size == 0 ? 0 : bits < 1 << (Int(size) - 1) ? bits - (1 << Int(size)) + 1 : bits
                                    predictors[i] &+= difference
                                    row[bx] = Int16(truncatingIfNeeded: predictors[i] << pointTransform)
                                }
                            }
                        }
                    }
                    if hitMarker { return false }  // data ran into a marker: damage, for libjpeg to judge
                }
            }
            // Less than a byte is left, its padding; a marker must follow at once.
            guard !hitMarker, bitCount < 8, position < bytes.count, bytes[position] == 0xFF else { return false }
            return true
        }

        /// Moves past restart marker `number`, which must come next.
        mutating func readRestart(_ number: Int) -> Bool {
            guard bitCount < 8 else { return false }  // whole bytes before the marker: damage
            bitBuffer = 0
            bitCount = 0
            guard position + 1 < bytes.count, bytes[position] == 0xFF, Int(bytes[position + 1]) == 0xD0 + number else { return false }
            position += 2
            return true
        }

        /// The value of the next Huffman code of `plan`'s table; nil for a code it lacks.
        @inline(__always)
        mutating func decodeHuffman(_ plan: Lookup) -> UInt8? {
            guard let lookahead = plan.lookahead, let maxCode = plan.maxCode, let offset = plan.offset, let values = plan.values else {
                return nil
            }
            let n = HuffmanTable.lookaheadBits
            if bitCount < n { fill() }
            // Near a scan's end fewer bits are left than the look-ahead: the peek is padded with zeros.
            let peek = bitCount >= n ? bitBuffer >> UInt64(bitCount - n) : bitBuffer << UInt64(n - bitCount)
            let entry = lookahead[Int(peek & UInt64((1 << n) - 1))]
            if entry != 0 {
                let length = Int(entry >> 8)
                guard length <= bitCount else {
                    hitMarker = true
                    return nil
                }
                bitCount -= length
                return UInt8(truncatingIfNeeded: entry)
            }
            var code = readBits(n)
            for length in (n + 1)...16 {
                code = code << 1 | readBits(1)
                if code <= maxCode[length] {
                    let index = code + offset[length]
                    return index < plan.valueCount ? values[index] : nil
                }
            }
            return nil
        }

        /// Tops the bit buffer up with bytes of entropy-coded data (a stuffed `FF 00` is one byte
        /// `FF`), up to a marker, which it leaves at ``position``.
        @inline(__always)
        mutating func fill() {
            while bitCount <= 56 {
                var byte: UInt8
                if position < bytes.count && bytes[position] != 0xFF {
                    byte = bytes[position]
                    position += 1
                } else if position + 1 < bytes.count && bytes[position + 1] == 0 {
                    byte = 0xFF
                    position += 2
                } else {
                    return
                }
                bitBuffer = bitBuffer << 8 | UInt64(byte)
                bitCount += 8
            }
        }

        /// The next `count` (≤ 16) bits; when the data runs into a marker first, 0 and ``hitMarker``.
        @inline(__always)
        mutating func readBits(_ count: Int) -> Int {
            guard count > 0 else { return 0 }
            if bitCount < count {
                fill()
                guard bitCount >= count else {
                    hitMarker = true
                    return 0
                }
            }
            bitCount -= count
            return Int((bitBuffer >> UInt64(bitCount)) & ((1 << UInt64(count)) - 1))
        }

        /// Moves past an AC scan's entropy-coded data, to the marker after it.
        mutating func skipEntropyData() -> Bool {
            while position + 1 < bytes.count {
                guard let base = bytes.baseAddress, let found = memchr(base + position, 0xFF, bytes.count - position) else { break }
                let at = base.distance(to: UnsafeRawPointer(found))
                guard at + 1 < bytes.count else { break }
                let next = bytes[at + 1]
                if next == 0 || (0xD0...0xD7).contains(next) {
                    position = at + 2
                } else {
                    position = at
                    return true
                }
            }
            return false
        }
    }
}
