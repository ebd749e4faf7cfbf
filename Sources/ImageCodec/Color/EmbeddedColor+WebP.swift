extension EmbeddedColor {
    /// The colour information of a WebP: the ICC profile in the `ICCP` chunk of an extended
    /// (`VP8X`) file. As in libwebp's demuxer, the chunk counts only when `VP8X` sets its ICC
    /// flag; a flag without a chunk, or a chunk without the flag, is a warning. Chunk sizes are
    /// checked against the file and the RIFF size.
    package static func webp(_ bytes: UnsafeRawBufferPointer) -> EmbeddedColor {
        var result = EmbeddedColor()
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8),
            let riffSize = bytes.littleEndian32(at: 4), let firstSize = bytes.littleEndian32(at: 16)
        else { return result }
        let end = min(bytes.count, 8 + riffSize)
        guard bytes.matches(Array("VP8X".utf8), at: 12) else {
            // A simple file (one VP8 or VP8L chunk) has no room for a profile.
            result.isComplete = true
            return result
        }
        guard firstSize >= 10, firstSize <= end - 20 else { return result }
        let announced = bytes[20] & 0x20 != 0
        var profile: [UInt8]?
        var offset = 20 + firstSize + (firstSize & 1)
        while offset <= end - 8, let size = bytes.littleEndian32(at: offset + 4) {
            let payload = offset + 8
            guard size <= end - payload else { break }  // cut short
            let fourCC = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)]), as: UTF8.self)
            if fourCC == "ICCP" && profile == nil {
                profile = bytes.copy(payload, size)
            } else if ["VP8 ", "VP8L", "ALPH", "ANIM", "ANMF"].contains(fourCC) {
                result.isComplete = true  // the image has begun; the ICCP chunk comes before it
                break
            }
            offset = payload + size + (size & 1)
        }
        if profile != nil && !announced {
            result.warnings.append("ICCP chunk ignored: the VP8X header does not announce it")
        } else if let profile, !profile.isEmpty {
            result.description = .iccProfile(profile)
        } else if announced && result.isComplete {
            result.warnings.append("the VP8X header announces an ICC profile but there is none")
        }
        return result
    }
}
