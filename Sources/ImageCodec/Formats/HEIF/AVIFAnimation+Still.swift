#if HEIF
import CAvif

extension AVIFAnimation {
    /// Rows converted from YUV at a time.
    private static let bandRows = 64
    /// Rows of context above and below a band: the 4:2:0 chroma upsampling of a row reads the
    /// chroma rows beside its own, two luma rows away at most.
    private static let contextRows = 2

    /// The still image (opened with `still`), covering `target`, upright, described by `source`.
    ///
    /// libavif's YUV → RGB runs on bands of rows (views of the decoded picture, with two rows of
    /// context each side so that chroma upsampling sees what it would in one whole conversion),
    /// each band's rows going through ``SamplePipeline`` and then ``ShrinkingRows``: no RGB copy of
    /// the whole picture is made, only the small output. A 5120 × 2880 photo then needs dav1d's
    /// picture and little else (libheif 1.15 holds three full-size copies).
    func decodeStill(covering target: PixelSize?, source described: ImageInfo) throws -> DecodedImage {
        let d = decoder.pointer
        let result = avifLibrary.avifDecoderNextImage(d)
        guard result == AVIF_RESULT_OK else { throw Self.error(result, decoder, noun: noun, frame: nil) }
        guard let frame = d.pointee.image else {
            throw ImageCacheError(.corruptData, "The AVIF image has no picture. The file is damaged.")
        }
        let whole = avifCropRect(x: 0, y: 0, width: frame.pointee.width, height: frame.pointee.height)
        let area = crop ?? whole
        guard Int(area.width) == stored.width, Int(area.height) == stored.height, area.x + area.width <= whole.width,
            area.y + area.height <= whole.height
        else {
            throw ImageCacheError(.corruptData, "The AVIF image's picture is not the size its header declares. The file is damaged.")
        }
        let storedInfo = ImageInfo(
            format: .avif, width: stored.width, height: stored.height, orientation: orientation, hasAlpha: described.hasAlpha)
        let (factor, shrunk, size) = ShrinkingRows.sizes(for: storedInfo, target: target)
        let image = try DecodedImage(
            allocating: size.width, height: size.height, pixelFormat: pipeline.pixelFormat, source: described, isOrientationApplied: true,
            scaleDenominator: TargetScale.denominator(for: storedInfo, size: size), zeroFilled: false)  // every row is written

        let layout = pipeline.layout
        let sampleBytes = layout.isSixteenBit ? layout.bytesPerPixel : 4
        let rowBytes = stored.width * sampleBytes
        let band = try LargeBufferPool.allocate(byteCount: rowBytes * (Self.bandRows + 2 * Self.contextRows), zeroed: false)
        try ShrinkingRows.write(into: image, sourceWidth: stored.width, sourceHeight: stored.height, factor: factor, shrunk: shrunk) {
            destination, completed in
            var y = 0
            while y < stored.height {
                let rows = min(Self.bandRows, stored.height - y)
                // The band with its context, within the picture: starts stay even (chroma rows).
                let top = max(0, y - Self.contextRows), bottom = min(stored.height, y + rows + Self.contextRows)
                var rect = avifCropRect(x: area.x, y: area.y + UInt32(top), width: area.width, height: UInt32(bottom - top))
                guard avifLibrary.avifImageSetViewRect(decoder.view, frame, &rect) == AVIF_RESULT_OK else {
                    throw ImageCacheError(.corruptData, "The AVIF image's rows \(top)–\(bottom) could not be read. The file is damaged.")
                }
                var rgb = avifRGBImage()
                avifLibrary.avifRGBImageSetDefaults(&rgb, decoder.view)
                rgb.alphaPremultiplied = 0  // straight: the pipeline converts colour, then premultiplies
                rgb.depth = layout.isSixteenBit ? 16 : 8
                rgb.format =
                    layout.isSixteenBit ? (layout.hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB) : AVIF_RGB_FORMAT_BGRA
                rgb.pixels = band.base.assumingMemoryBound(to: UInt8.self)
                rgb.rowBytes = UInt32(rowBytes)
                let converted = avifLibrary.avifImageYUVToRGB(decoder.view, &rgb)
                guard converted == AVIF_RESULT_OK else {
                    throw ImageCacheError(
                        .corruptData,
                        "The AVIF image could not be converted to RGB (libavif: \(Self.describe(converted))). The file is damaged.")
                }
                for row in y..<(y + rows) {
                    let out = destination(row)
                    pipeline.convert(band.base + (row - top) * rowBytes, to: UnsafeMutableRawPointer(out), count: stored.width)
                    completed(out)
                }
                y += rows
            }
        }
        return orientation == .up ? image : try OrientationTransform.apply(orientation, to: image)
    }
}
#endif
