/// What ``ImageFormats`` needs beyond each decoder's own signature: a JPEG behind junk, the
/// formats the package does not decode (to name them), and the error for bytes that are no image.
/// Formats are recognised from their first bytes (magic numbers), never from file names.
enum FormatSniffer {
    /// A signature: the bytes expected at `offset`.
    private struct OtherSignature {
        let name: String
        let offset: Int
        let bytes: [UInt8]
    }

    /// Formats recognised only to name them in an error message.
    private static let others: [OtherSignature] = [
        OtherSignature(name: "BMP", offset: 0, bytes: Array("BM".utf8)),
        OtherSignature(name: "JPEG 2000", offset: 0, bytes: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]),
        OtherSignature(name: "ICO", offset: 0, bytes: [0x00, 0x00, 0x01, 0x00]),
        OtherSignature(name: "Photoshop PSD", offset: 0, bytes: Array("8BPS".utf8)),
        OtherSignature(name: "PDF", offset: 0, bytes: Array("%PDF".utf8)),
        OtherSignature(name: "SVG/XML", offset: 0, bytes: Array("<?xml".utf8)),
        OtherSignature(name: "SVG", offset: 0, bytes: Array("<svg".utf8)),
        OtherSignature(name: "gzip", offset: 0, bytes: [0x1F, 0x8B]),
        OtherSignature(name: "ZIP", offset: 0, bytes: Array("PK\u{03}\u{04}".utf8))
    ]

    private static func matches(_ signature: OtherSignature, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= signature.offset + signature.bytes.count else { return false }
        for (index, byte) in signature.bytes.enumerated() where bytes[signature.offset + index] != byte {
            return false
        }
        return true
    }

    /// Whether `bytes` start like a format the package does not decode.
    static func isKnownOtherFormat(_ bytes: UnsafeRawBufferPointer) -> Bool {
        others.contains { matches($0, bytes) }
    }

    /// How far into the data a JPEG's start-of-image marker is looked for when the data does not
    /// start with one.
    static let junkLimit = 1024

    /// Where a JPEG preceded by junk (as some cameras and broken uploads write) starts: the offset
    /// of its start-of-image marker, when that lies within ``junkLimit`` bytes, is followed by a
    /// marker that can open a JPEG, and the data is no other known format.
    static func jpegAfterJunk(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count > 4, !isKnownOtherFormat(bytes) else { return nil }
        let end = min(bytes.count - 3, junkLimit)
        var index = 1
        while index < end {
            if bytes[index] == 0xFF, bytes[index + 1] == 0xD8, bytes[index + 2] == 0xFF, opensJPEG(bytes[index + 3]) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Whether `marker` may follow SOI: APPn, COM, DQT, DHT, DRI, or a start-of-frame.
    private static func opensJPEG(_ marker: UInt8) -> Bool {
        switch marker {
        case 0xE0...0xEF, 0xFE, 0xDB, 0xC4, 0xDD, 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF: return true
        default: return false
        }
    }

    /// The error for bytes that ``format(of:)`` does not recognise, naming what they look like.
    static func unrecognisedError(_ bytes: UnsafeRawBufferPointer) -> ImageCacheError {
        if bytes.isEmpty {
            return ImageCacheError(.emptyInput, "The input is empty (0 bytes); there is no image to decode.")
        }
        if let decoder = ImageFormats.decoders.first(where: { $0.sniff(bytes) == .needMoreBytes }) {
            return ImageCacheError(
                .truncated,
                "The input is only \(bytes.count) byte\(bytes.count == 1 ? "" : "s"), the start of a \(decoder.format.name) file; the file was cut short."
            )
        }
        if let other = others.first(where: { matches($0, bytes) }) {
            return ImageCacheError(
                .unsupportedFormat,
                "The input is a \(other.name) file; only \(decodedFormats) are decoded. Convert it to one of those."
            )
        }
        if bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8) {
            return ImageCacheError(
                .unsupportedFormat,
                "The input is a RIFF file but not WebP (form type \(describe(bytes, from: 8, count: 4))); only \(decodedFormats) are decoded."
            )
        }
        let looksLikeText = bytes.prefix(64).allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }
        let leading = describe(bytes, from: 0, count: 4)
        return ImageCacheError(
            .unsupportedFormat,
            looksLikeText
                ? "The input is text, not an image (it starts with \(leading)); only \(decodedFormats) are decoded."
                : "The input is not an image of a format the package decodes (\(decodedFormats)): unknown bytes \(leading) at its start."
        )
    }

    /// The names of the decoded formats, for messages: "JPEG, PNG, WebP, HEIF, AVIF, JPEG XL, GIF and TIFF".
    static var decodedFormats: String {
        let names = ImageFormats.decoders.flatMap { $0.formats.map(\.name) }
        return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// `"0xAB 0xCD …"` for up to `count` bytes from `start`.
    static func describe(_ bytes: UnsafeRawBufferPointer, from start: Int, count: Int) -> String {
        guard start < bytes.count else { return "(nothing)" }
        let end = min(bytes.count, start + count)
        return bytes[start..<end].map { byte in
            let hex = String(byte, radix: 16, uppercase: false)
            return "0x" + (hex.count == 1 ? "0" + hex : hex)
        }.joined(separator: " ")
    }
}
