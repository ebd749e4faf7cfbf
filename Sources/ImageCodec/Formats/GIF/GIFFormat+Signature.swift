/// GIF decoding with giflib's low-level API: the first frame on its canvas (see ``GIFCanvas``),
/// row by row. giflib has no reduced decode: rows are shrunk as they come (``ShrinkingRows``), so
/// only an interlaced frame, whose rows come in four passes, is held whole (as one byte a pixel).
///
/// A file whose first frame's image data is cut short is refused in every mode (with
/// ``DecodingOptions/allowCorruptData`` too), as a JPEG without its end is: an incomplete download
/// must not be stored as the image. What comes after the first frame is not decoded: later frames
/// cut short do not matter. Damage inside complete image data is shown as browsers show it (the
/// rows before it) by default, and refused when strict.
package enum GIFFormat: Sendable {}

extension GIFFormat {
    /// GIF.
    package static let format = ImageFileFormat.gif

    /// `GIF87a` or `GIF89a`.
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        switch Signature.check(prefix, Array("GIF87a".utf8)) {
        case .noMatch: Signature.check(prefix, Array("GIF89a".utf8))
        case let other: other
        }
    }
}

#if !GIF
/// Recognised by its first bytes, and refused by name: the package trait GIF is off.
extension GIFFormat: DisabledFormatDecoder {
    package static let trait = "GIF"
}
#endif
