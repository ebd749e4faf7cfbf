/// Full-size rows on their way into a decoded bitmap that covers the caller's target: straight
/// into it when no shrinking is needed, else through a ``BoxShrinker`` (the largest whole factor
/// that still covers the target) and then an ``AreaResampler`` (to exactly the covering size), row
/// by row, so that the shrunk image never needs a full-size bitmap of its own. For decoders whose
/// library has no reduced decode (JPEG XL, GIF): they hand each row of the source here as it is
/// ready, top to bottom.
enum ShrinkingRows {
    /// The sizes a decode of `info` for `target` goes through: the whole factor, the size after it,
    /// and the final (covering) size.
    static func sizes(for info: ImageInfo, target: PixelSize?) -> (
        factor: Int, shrunk: (width: Int, height: Int), output: (width: Int, height: Int)
    ) {
        let factor = TargetScale.wholeFactor(for: info, target: target, limit: BoxShrinker.maximumFactor)
        let shrunk = ((info.width + factor - 1) / factor, (info.height + factor - 1) / factor)
        guard max(shrunk.0, shrunk.1) <= AreaResampler.maximumSourceSide else { return (factor, shrunk, shrunk) }  // extreme strips
        return (factor, shrunk, TargetScale.coveringSize(for: info, target: target, within: shrunk))
    }

    /// Calls `body` with two functions for the `sourceWidth × sourceHeight` source rows, which it
    /// hands over in order: `destination(y)` is where row `y` (4 bytes a pixel, the output's
    /// pixel format) is to be written, and `completed(pointer)` takes it once written. The rows end
    /// up in `image`, shrunk by `factor` to `shrunk`, then resampled to the image's size.
    static func write(
        into image: DecodedImage, sourceWidth: Int, sourceHeight: Int, factor: Int, shrunk: (width: Int, height: Int),
        _ body: (_ destination: (Int) -> UnsafeMutablePointer<UInt32>, _ completed: (UnsafePointer<UInt32>) -> Void) throws -> Void
    ) throws {
        let rowPixels = image.bytesPerRow / 4
        let pixels = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        let resample = image.width != shrunk.width || image.height != shrunk.height
        guard factor > 1 || resample else {
            try body({ pixels + $0 * rowPixels }, { _ in })
            return
        }
        let scratch = try LargeBufferPool.allocate(byteCount: (sourceWidth + shrunk.width) * 4, zeroed: false)
        let sourceRow = scratch.base.assumingMemoryBound(to: UInt32.self)
        let shrunkRow = sourceRow + sourceWidth
        let (width, height) = (image.width, image.height)
        switch (factor > 1, resample) {
        case (false, _):
            var resampler = AreaResampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight, outputWidth: width, outputHeight: height)
            try body({ _ in sourceRow }, { row in resampler.add(row) { pixels + $0 * rowPixels } })
        case (true, false):
            var shrinker = BoxShrinker(sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor)
            try body({ _ in sourceRow }, { row in _ = shrinker.add(row) { pixels + $0 * rowPixels } })
        case (true, true):
            var shrinker = BoxShrinker(sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor)
            var resampler = AreaResampler(sourceWidth: shrunk.width, sourceHeight: shrunk.height, outputWidth: width, outputHeight: height)
            try body(
                { _ in sourceRow },
                { row in
                    if shrinker.add(row, output: { _ in shrunkRow }) != nil {
                        resampler.add(shrunkRow) { pixels + $0 * rowPixels }
                    }
                })
        }
    }
}
