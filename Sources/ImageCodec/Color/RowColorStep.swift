/// The colour step of decoders whose library writes rows in 4 bytes a pixel already (libjpeg's
/// BGRX or CMYK, the PNG row converter's BGRX or premultiplied BGRA): each row converted to sRGB
/// in place, through ``ColorConverter``, after the library wrote it. Decoders that hand their
/// samples to ``SamplePipeline`` get the same conversion there.
///
/// Any number of threads may convert rows with it at once (``ColorConverter`` may, and it keeps
/// no state between rows): a decoder's, and the sink's it hands its rows to
/// (``RowBatch/pendingColor``).
package final class RowColorStep: Sendable {
    /// What the rows hold when the library has written them.
    enum Rows {
        /// Blue, green, red, unused.
        case bgrx
        /// Blue, green, red, alpha, premultiplied.
        case premultipliedBGRA
        /// Cyan, magenta, yellow, black as a JPEG stores them (inverted: 255 is no ink).
        case cmyk(inverted: Bool)
    }

    private let converter: ColorConverter
    private let rows: Rows
    private let width: Int
    /// For grey images with a grey profile: the rows hold grey as three equal channels, and the
    /// converter takes the grey (and alpha) samples alone, gathered for each row.
    private let gathersGrey: Bool

    /// The step for rows of `width` pixels holding `rows`, of an image whose colours are
    /// `color`; `isGrey` when the image itself is grey. Nil when the rows are sRGB already. What
    /// cannot be honoured is appended to `warnings`.
    init?(color: ColorDescription, rows: Rows, isGrey: Bool, width: Int, warnings: inout [String]) {
        let layout: ColorConverter.Layout
        var greyLayout = false
        switch rows {
        case .cmyk(let inverted):
            layout = inverted ? .cmykInverted8 : .cmyk8
        case .bgrx, .premultipliedBGRA:
            let alpha = if case .premultipliedBGRA = rows { true } else { false }
            // A grey profile describes grey samples; an RGB one (or a gamma, code points) the
            // three equal channels as they are.
            if isGrey, case .iccProfile(let profile) = color, profile.count >= 20, Array(profile[16..<20]) == Array("GRAY".utf8) {
                layout = alpha ? .grayAlpha8 : .gray8
                greyLayout = true
            } else {
                layout = alpha ? .bgra8 : .bgrx8
            }
        }
        guard let converter = ColorConverter.make(for: color, layout: layout, warnings: &warnings) else { return nil }
        self.converter = converter
        self.rows = rows
        self.width = width
        gathersGrey = greyLayout
    }

    /// Converts one row (`width` pixels) in place.
    package func convert(_ row: UnsafeMutableRawPointer) {
        let pixels = row.assumingMemoryBound(to: UInt32.self)
        let premultiplied = if case .premultipliedBGRA = rows { true } else { false }
        if premultiplied {
            // The converter takes straight alpha: colours of translucent pixels are recovered
            // first, and premultiplied again after.
            for x in 0..<width { pixels[x] = PixelConversion.unpremultiplied(pixels[x]) }
        }
        if gathersGrey {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(width, 1) * 2) { grey in
                let bytes = row.assumingMemoryBound(to: UInt8.self)
                if premultiplied {
                    for x in 0..<width { grey[2 * x] = bytes[4 * x + 1]; grey[2 * x + 1] = bytes[4 * x + 3] }
                } else {
                    for x in 0..<width { grey[x] = bytes[4 * x + 1] }
                }
                converter.convert(grey.baseAddress!, to: row, count: width)
            }
        } else {
            converter.convert(row, to: row, count: width)
        }
        if premultiplied {
            for x in 0..<width { pixels[x] = PixelConversion.premultiplied(pixels[x]) }
        }
    }
}
