/// TIFF and BigTIFF through libtiff: the first page, from strips or tiles, at 1 to 16 bits, grey,
/// RGB, palette, CMYK, with alpha, in any compression libtiff has (JPEG, deflate, LZW, PackBits,
/// CCITT fax, ZSTD, WebP, …), contiguous or in separate planes; layouts read no other way go
/// through libtiff's RGBA reader.
///
/// A decode at a smaller size starts from the smallest reduced-resolution level of a pyramidal
/// TIFF that covers it, and shrinks rows as the strips and tiles are read (``BoxShrinker``, then
/// ``AreaResampler``), so no full-size bitmap exists. Tile pyramids read a TIFF file where it
/// lies, a band (a strip, a row of tiles) at a time; a TIFF arriving over the network is spooled
/// to a scratch file and decoded from it at the end, since its directory usually comes last.
package enum TIFFFormat: Sendable {}

extension TIFFFormat {
    /// TIFF.
    package static let format = ImageFileFormat.tiff

    /// The four signatures: little- and big-endian TIFF and BigTIFF.
    static let signatures: [[UInt8]] = [
        [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]
    ]

    /// `II*\0`, `MM\0*`, `II+\0` or `MM\0+`.
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        var undecided = false
        for signature in signatures {
            switch Signature.check(prefix, signature) {
            case .match: return .match(offset: 0)
            case .needMoreBytes: undecided = true
            case .noMatch: break
            }
        }
        return undecided ? .needMoreBytes : .noMatch
    }
}

#if !TIFF
/// Recognised by its first bytes, and refused by name: the package trait TIFF is off.
extension TIFFFormat: DisabledFormatDecoder {
    package static let trait = "TIFF"
}
#endif
