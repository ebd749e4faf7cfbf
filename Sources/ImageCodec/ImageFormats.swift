/// The formats the package decodes, and the one place a file's format is recognised.
package enum ImageFormats {
    /// Every format's decoder, in the order they are tried.
    package static let decoders: [any ImageFormatDecoder.Type] = [
        JPEGFormat.self, PNGFormat.self, WebPFormat.self, HEIFFormat.self, JXLFormat.self, GIFFormat.self, TIFFFormat.self
    ]

    /// The decoder of `format`.
    package static func decoder(for format: ImageFileFormat) -> any ImageFormatDecoder.Type {
        guard let found = decoders.first(where: { $0.formats.contains(format) }) else {
            preconditionFailure("every ImageFileFormat has a decoder in ImageFormats.decoders")
        }
        return found
    }

    /// What the first bytes of a file are: a decoder and where its data starts, `nil` while too
    /// few bytes were given to tell, or an error naming what the bytes are instead (also when
    /// `final`, no more bytes will come).
    package static func sniff(_ prefix: UnsafeRawBufferPointer, final: Bool) throws -> (decoder: any ImageFormatDecoder.Type, offset: Int)?
    {
        var undecided = false
        for decoder in decoders {
            switch decoder.sniff(prefix) {
            case .match(let offset): return (decoder, offset)
            case .needMoreBytes: undecided = true
            case .noMatch: break
            }
        }
        if let offset = FormatSniffer.jpegAfterJunk(prefix) { return (JPEGFormat.self, offset) }
        if (undecided || prefix.count < FormatSniffer.junkLimit) && !final && !FormatSniffer.isKnownOtherFormat(prefix) { return nil }
        throw FormatSniffer.unrecognisedError(prefix)
    }

    /// The decoder of a complete file's bytes and the bytes of its image (after junk before a JPEG).
    package static func locate(_ bytes: UnsafeRawBufferPointer) throws -> (
        decoder: any ImageFormatDecoder.Type, data: UnsafeRawBufferPointer
    ) {
        guard let (decoder, offset) = try sniff(bytes, final: true) else { throw FormatSniffer.unrecognisedError(bytes) }
        return (decoder, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }
}

/// Compares the first bytes of a file with a signature.
package enum Signature {
    /// `.match(offset: 0)` when `prefix` starts with `bytes`, `.needMoreBytes` when it is shorter
    /// but agrees with all of them it has, else `.noMatch`.
    package static func check(_ prefix: UnsafeRawBufferPointer, _ bytes: [UInt8]) -> SniffResult {
        let count = min(prefix.count, bytes.count)
        for index in 0..<count where prefix[index] != bytes[index] { return .noMatch }
        return prefix.count >= bytes.count ? .match(offset: 0) : .needMoreBytes
    }
}
