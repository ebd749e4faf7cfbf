/// JPEG XL decoding with libjxl 0.7: the first (displayed, coalesced) frame, on libjxl's thread
/// pool, in the file's stored orientation (the package applies the orientation, as for every
/// format), then through ``SamplePipeline``.
///
/// libjxl 0.7 cannot decode at a reduced size (its DC-only flush still renders a full-size
/// buffer), so a small target is reached by decoding at full size and shrinking the rows with
/// ``ShrinkingRows``. A JPEG-recompressed file could instead be reconstructed to its original JPEG
/// and decoded with DCT scaling, but reconstruction costs more than libjxl's whole pixel decode on
/// two threads, so it is not used.
///
/// On damaged input Debian's libjxl 0.7 prints trace lines (`JXL_FAILURE`, `JXL_RETURN_IF_ERROR`)
/// to standard error: it is built without `NDEBUG`, which turns them on at compile time, and it has
/// no setting to turn them off. Files cut short are recognised without them (see ``JXLReader``);
/// other damage is reported as ``ImageCacheError/Code/corruptData`` after libjxl printed.
package enum JXLFormat: Sendable {}

extension JXLFormat {
    /// JPEG XL.
    package static let format = ImageFileFormat.jxl

    /// A bare codestream (`FF 0A`) or the container's signature box.
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        // JxlSignatureCheck's rule, written here so that sniffing a file does not load libjxl:
        // a bare codestream starts FF 0A; a container (first byte 0) is told once its 12-byte
        // signature box is there.
        guard let first = prefix.first else { return .needMoreBytes }
        let signature = first == 0xFF ? codestream : first == 0 ? container : []
        if signature.isEmpty { return .noMatch }
        if prefix.count < signature.count { return .needMoreBytes }
        return prefix.prefix(signature.count).elementsEqual(signature) ? .match(offset: 0) : .noMatch
    }

    /// The start of a bare codestream.
    private static let codestream: [UInt8] = [0xFF, 0x0A]
    /// The container's signature box (ISO/IEC 18181-2).
    private static let container: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
}

#if !JPEGXL
/// Recognised by its first bytes, and refused by name: the package trait JPEGXL is off.
extension JXLFormat: DisabledFormatDecoder {
    package static let trait = "JPEGXL"
}
#endif
