/// Follows the marker structure of JPEG data, from the start of entropy-coded data onwards, to
/// find the end-of-image marker without decoding.
///
/// libjpeg's arithmetic decoder cannot suspend, so the incremental decoder buffers
/// arithmetic-coded streams until this scanner has seen EOI. Marker segments are skipped by their
/// length, so `FF D9` inside them is not mistaken for EOI.
struct JPEGEndScanner {
    private enum State {
        case data
        case afterFF
        case lengthHigh
        case lengthLow(high: Int)
        case skipping(remaining: Int)
        case ended
    }

    private var state = State.data

    /// Whether EOI has been seen.
    var foundEnd: Bool {
        if case .ended = state { return true }
        return false
    }

    /// Scans the next bytes of the stream.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch state {
            case .data:
                if let next = bytes[index...].firstIndex(of: 0xFF) {
                    index = next
                    state = .afterFF
                } else {
                    return
                }
            case .afterFF:
                switch byte {
                case 0xFF: break  // fill byte
                case 0x00, 0xD0...0xD7, 0xD8, 0x01: state = .data  // stuffed zero, RSTn, SOI, TEM
                case 0xD9: state = .ended
                default: state = .lengthHigh
                }
            case .lengthHigh:
                state = .lengthLow(high: Int(byte))
            case .lengthLow(let high):
                let length = high << 8 | Int(byte)
                state = length > 2 ? .skipping(remaining: length - 2) : .data
            case .skipping(let remaining):
                let available = bytes.count - index
                if available >= remaining {
                    index += remaining
                    state = .data
                    continue
                }
                state = .skipping(remaining: remaining - available)
                return
            case .ended:
                return
            }
            index += 1
        }
    }
}
