extension EmbeddedColor {
    /// The colour information of a JPEG: the ICC profile spread over `APP2 ICC_PROFILE` markers,
    /// reassembled in the order of their sequence numbers, and the Adobe `APP14` marker's
    /// transform flag. Reads marker segments from SOI to the first SOS; every length is checked.
    ///
    /// The profile's pieces must fit together, as libjpeg-turbo (`jpeg_read_icc_profile`),
    /// Chromium and Firefox require: every piece states the same count, each sequence number is
    /// within 1…count and seen once, none is missing. Pieces may come in any order. Otherwise
    /// there is no profile (the picture is still valid, taken as sRGB) and a warning says why.
    package static func jpeg(_ bytes: UnsafeRawBufferPointer) -> EmbeddedColor {
        var result = EmbeddedColor()
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            return result
        }
        let adobeSignature = Array("Adobe".utf8)
        var pieces: [(sequence: Int, count: Int, data: [UInt8])] = []
        var offset = 2
        scan: while offset < bytes.count {
            // Markers are 0xFF then a code; fill bytes (more 0xFF) may come first, and libjpeg
            // skips stray bytes before a marker, so both are skipped here too.
            guard let next = bytes[offset...].firstIndex(of: 0xFF) else { break }
            offset = next
            while offset < bytes.count && bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { break }
            let marker = bytes[offset]
            offset += 1
            switch marker {
            case 0xDA, 0xD9:  // start of scan, end of image: every header marker has been seen
                result.isComplete = true
                break scan
            case 0x00, 0x01, 0xD0...0xD8:  // not a segment (a stuffed zero, TEM, RSTn, SOI)
                continue scan
            default:
                guard let length = bytes.bigEndian16(at: offset), length >= 2 else { break scan }
                let payload = offset + 2, end = offset + length
                guard end <= bytes.count else { break scan }  // cut inside the segment
                let size = end - payload
                if marker == 0xE2, let piece = iccPiece(UnsafeRawBufferPointer(rebasing: bytes[payload..<end])) {
                    pieces.append(piece)
                } else if marker == 0xEE, size >= 12, bytes.matches(adobeSignature, at: payload) {
                    result.adobeTransform = Int(bytes[payload + 11])  // the last marker wins, as in libjpeg
                }
                offset = end
            }
        }
        result.addProfile(pieces)
        return result
    }

    /// The colour information of the `APP2` payloads a JPEG decoder saved (libjpeg's marker
    /// list, in file order), checked as ``jpeg(_:)`` checks them; complete, since the decoder has
    /// read the whole header. The Adobe marker's flag is the decoder's to read.
    package static func jpeg(app2Payloads: [UnsafeRawBufferPointer]) -> EmbeddedColor {
        var result = EmbeddedColor()
        result.isComplete = true
        result.addProfile(app2Payloads.compactMap(iccPiece))
        return result
    }

    /// The sequence number, count and data of an `APP2` payload that is a piece of an ICC profile.
    private static func iccPiece(_ payload: UnsafeRawBufferPointer) -> (sequence: Int, count: Int, data: [UInt8])? {
        guard payload.count >= 14, payload.matches(Array("ICC_PROFILE".utf8) + [0], at: 0) else { return nil }
        return (Int(payload[12]), Int(payload[13]), payload.copy(14, payload.count - 14))
    }

    /// The profile the pieces make, or a warning saying why there is none.
    private mutating func addProfile(_ pieces: [(sequence: Int, count: Int, data: [UInt8])]) {
        guard !pieces.isEmpty else { return }
        switch Self.assemble(pieces) {
        case .success(let profile): description = .iccProfile(profile)
        case .failure(let problem): warnings.append("ICC profile ignored: \(problem.reason)")
        }
    }

    /// Why an ICC profile's pieces do not fit together.
    private struct PieceProblem: Error {
        let reason: String
    }

    /// The profile from its pieces, or why they do not fit together.
    private static func assemble(_ pieces: [(sequence: Int, count: Int, data: [UInt8])]) -> Result<[UInt8], PieceProblem> {
        let count = pieces[0].count
        guard count > 0 else { return .failure(PieceProblem(reason: "a piece's count is 0")) }
        guard pieces.allSatisfy({ $0.count == count }) else {
            return .failure(PieceProblem(reason: "its pieces disagree on how many there are"))
        }
        var ordered = [[UInt8]?](repeating: nil, count: count + 1)
        for piece in pieces {
            guard piece.sequence >= 1, piece.sequence <= count else {
                return .failure(PieceProblem(reason: "a piece is numbered \(piece.sequence) of \(count)"))
            }
            guard ordered[piece.sequence] == nil else {
                return .failure(PieceProblem(reason: "two pieces are numbered \(piece.sequence)"))
            }
            ordered[piece.sequence] = piece.data
        }
        var profile: [UInt8] = []
        for sequence in 1...count {
            guard let data = ordered[sequence] else {
                return .failure(PieceProblem(reason: "piece \(sequence) of \(count) is missing"))
            }
            profile += data
        }
        guard !profile.isEmpty else { return .failure(PieceProblem(reason: "its pieces are empty")) }
        return .success(profile)
    }
}
