/// Recognises image containers from their first bytes (magic numbers), never from file names.
enum FormatSniffer {
    /// A signature: the bytes expected at `offset`.
    private struct Signature {
        let name: String
        let offset: Int
        let bytes: [UInt8]
    }

    private static let jpeg = Signature(name: "JPEG", offset: 0, bytes: [0xFF, 0xD8, 0xFF])
    private static let png = Signature(name: "PNG", offset: 0, bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    private static let riff = Signature(name: "RIFF", offset: 0, bytes: Array("RIFF".utf8))
    private static let webp = Signature(name: "WebP", offset: 8, bytes: Array("WEBP".utf8))

    /// Formats recognised only to name them in an error message.
    private static let others: [Signature] = [
        Signature(name: "GIF", offset: 0, bytes: Array("GIF87a".utf8)),
        Signature(name: "GIF", offset: 0, bytes: Array("GIF89a".utf8)),
        Signature(name: "BMP", offset: 0, bytes: Array("BM".utf8)),
        Signature(name: "TIFF", offset: 0, bytes: [0x49, 0x49, 0x2A, 0x00]),
        Signature(name: "TIFF", offset: 0, bytes: [0x4D, 0x4D, 0x00, 0x2A]),
        Signature(name: "HEIF/HEIC", offset: 4, bytes: Array("ftypheic".utf8)),
        Signature(name: "HEIF/HEIC", offset: 4, bytes: Array("ftypheix".utf8)),
        Signature(name: "HEIF/HEIC", offset: 4, bytes: Array("ftypmif1".utf8)),
        Signature(name: "AVIF", offset: 4, bytes: Array("ftypavif".utf8)),
        Signature(name: "JPEG XL", offset: 0, bytes: [0xFF, 0x0A]),
        Signature(name: "JPEG XL", offset: 0, bytes: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]),
        Signature(name: "JPEG 2000", offset: 0, bytes: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]),
        Signature(name: "ICO", offset: 0, bytes: [0x00, 0x00, 0x01, 0x00]),
        Signature(name: "Photoshop PSD", offset: 0, bytes: Array("8BPS".utf8)),
        Signature(name: "PDF", offset: 0, bytes: Array("%PDF".utf8)),
        Signature(name: "SVG/XML", offset: 0, bytes: Array("<?xml".utf8)),
        Signature(name: "SVG", offset: 0, bytes: Array("<svg".utf8)),
        Signature(name: "gzip", offset: 0, bytes: [0x1F, 0x8B]),
        Signature(name: "ZIP", offset: 0, bytes: Array("PK\u{03}\u{04}".utf8)),
    ]

    private static func matches(_ signature: Signature, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= signature.offset + signature.bytes.count else { return false }
        for (index, byte) in signature.bytes.enumerated() where bytes[signature.offset + index] != byte {
            return false
        }
        return true
    }

    /// Whether `bytes` is shorter than `signature` but agrees with all of it that is present.
    private static func isPrefix(of signature: Signature, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty, bytes.count < signature.offset + signature.bytes.count else { return false }
        for index in 0..<bytes.count {
            let position = index - signature.offset
            if position >= 0 && position < signature.bytes.count && bytes[index] != signature.bytes[position] {
                return false
            }
        }
        return true
    }

    /// The decodable format of `bytes`, if any.
    static func format(of bytes: UnsafeRawBufferPointer) -> ImageFileFormat? {
        if matches(jpeg, bytes) { return .jpeg }
        if matches(png, bytes) { return .png }
        if matches(riff, bytes) && matches(webp, bytes) { return .webp }
        return nil
    }

    /// How far into the data a JPEG's start-of-image marker is looked for when the data does not
    /// start with one.
    static let junkLimit = 1024

    /// The decodable format of `bytes` and where its data starts: 0, or for a JPEG preceded by junk
    /// (as some cameras and broken uploads write), the offset of its start-of-image marker, when
    /// that lies within ``junkLimit`` bytes, is followed by a marker that can open a JPEG, and the
    /// data is no other known format.
    static func locate(_ bytes: UnsafeRawBufferPointer) -> (format: ImageFileFormat, offset: Int)? {
        if let format = format(of: bytes) { return (format, 0) }
        guard bytes.count > 4, !others.contains(where: { matches($0, bytes) }) else { return nil }
        let end = min(bytes.count - 3, junkLimit)
        var index = 1
        while index < end {
            if bytes[index] == 0xFF, bytes[index + 1] == 0xD8, bytes[index + 2] == 0xFF, opensJPEG(bytes[index + 3]) {
                return (.jpeg, index)
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
        for signature in [jpeg, png, riff] where isPrefix(of: signature, bytes) {
            return ImageCacheError(.truncated,
                "The input is only \(bytes.count) byte\(bytes.count == 1 ? "" : "s"), the start of a \(signature.name == "RIFF" ? "WebP" : signature.name) signature; the file was cut short."
            )
        }
        if matches(riff, bytes) && bytes.count < 12 {
            return ImageCacheError(.truncated,
                "The input is only \(bytes.count) bytes, the start of a RIFF (WebP?) header; the file was cut short."
            )
        }
        if let other = others.first(where: { matches($0, bytes) }) {
            return ImageCacheError(.unsupportedFormat,
                "The input is a \(other.name) file; only JPEG, PNG and WebP are decoded. Convert it to one of those."
            )
        }
        if matches(riff, bytes) {
            return ImageCacheError(.unsupportedFormat,
                "The input is a RIFF file but not WebP (form type \(describe(bytes, from: 8, count: 4))); only JPEG, PNG and WebP are decoded."
            )
        }
        let looksLikeText = bytes.prefix(64).allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }
        let leading = describe(bytes, from: 0, count: 4)
        return ImageCacheError(.unsupportedFormat,
            looksLikeText
                ? "The input is text, not an image (it starts with \(leading)); only JPEG, PNG and WebP are decoded."
                : "The input is not a JPEG, PNG or WebP image: unknown bytes \(leading) at its start."
        )
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
