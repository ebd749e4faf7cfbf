import CImageCodecSupport
import CLibJPEG

/// A JPEG file's quantisation, as an encoder can reuse it: the steps of its luma table and of its
/// chroma table (64 each, in natural order: row by row of the 8 × 8 block).
///
/// Re-encoding a JPEG's decoded pixels with the file's own tables, on the same 8 × 8 (and 16 × 16
/// for 4:2:0) grid, lands on nearly the same coefficients: the copy is as large as the source and
/// within about 47–62 dB of its plain decode (six test photos encoded by cjpeg at quality 90),
/// where quality 95's tables make a copy a third larger and further from it (45–52 dB).
package struct JPEGQuantization: Sendable, Hashable {
    /// The luma (or grey) table's steps, 1…255.
    package var luma: [UInt16]
    /// The chroma tables' steps, 1…255; nil for a grey file.
    package var chroma: [UInt16]?

    /// The tables of a YCbCr file of three components or a grey file of one; nil for any other
    /// (RGB, CMYK) or for tables past baseline's 255. Its luma blocks are an encoder's at any
    /// sampling; its chroma, when sampled finer than 4:2:0, is averaged by a 4:2:0 encoder and
    /// quantised with the file's chroma steps, as fine as the file's own.
    init?(_ header: fic_jpeg_header) {
        let space = J_COLOR_SPACE(rawValue: UInt32(header.color_space))
        let yCbCr = space == JCS_YCbCr && header.components == 3
        let grey = space == JCS_GRAYSCALE && header.components == 1
        guard (yCbCr && header.has_chroma_quantization != 0) || grey, header.has_luma_quantization != 0 else { return nil }
        func steps<T>(_ tuple: T) -> [UInt16] { withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: UInt16.self)) } }
        luma = steps(header.luma_quantization)
        chroma = yCbCr ? steps(header.chroma_quantization) : nil
        guard luma.allSatisfy({ (1...255).contains($0) }), chroma?.allSatisfy({ (1...255).contains($0) }) ?? true else { return nil }
    }

    /// Tables given as they are (tests).
    package init(luma: [UInt16], chroma: [UInt16]?) {
        self.luma = luma
        self.chroma = chroma
    }
}
