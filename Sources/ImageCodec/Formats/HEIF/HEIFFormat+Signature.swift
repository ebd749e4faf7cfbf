/// HEIC (HEVC in HEIF, as phones write it) and AVIF (AV1 in HEIF) with libheif: the primary
/// image, upright (libheif applies the file's `irot`, `imir` and `clap`), grids assembled by
/// libheif on several threads, alpha (straight or premultiplied), 10- and 12-bit samples at full
/// precision into ``SamplePipeline``.
///
/// libheif 1.15 cannot decode at a reduced scale; a smaller size comes from the file's embedded
/// thumbnail when one covers it (as `vipsthumbnail` does), else from the full image shrunk by an
/// ``AreaResampler``. It decodes whole images only, so tile pyramids get them whole too
/// (``WholeImageRowDecoder``).
package enum HEIFFormat: Sendable {}

extension HEIFFormat {
    /// HEIF; AVIF files are told apart by their brands (``format(of:)``).
    package static let format = ImageFileFormat.heif

    /// HEIF and AVIF.
    package static let formats: [ImageFileFormat] = [.heif, .avif]

    /// An `ftyp` box with a HEIF or AVIF brand (heic, heix, hevc, heim, heis, hevm, hevs, mif1,
    /// msf1, avif, avis) as the major brand or a compatible one.
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        HEIFBoxes.sniff(prefix)
    }

    /// AVIF when the brands say AV1, else HEIF.
    package static func format(of prefix: UnsafeRawBufferPointer) -> ImageFileFormat {
        HEIFBoxes.brands(prefix)?.isAVIF == true ? .avif : .heif
    }
}

#if !HEIF
/// Recognised by its first bytes, and refused by name: the package trait HEIF is off.
extension HEIFFormat: DisabledFormatDecoder {
    package static let trait = "HEIF"
}
#endif
