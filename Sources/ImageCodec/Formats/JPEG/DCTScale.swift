extension ImageDecoder {
    /// The libjpeg DCT scale denominator (8, 4, 2 or 1) to decode `info` at so that the output still
    /// covers `target` in both dimensions.
    ///
    /// Picks the largest denominator `d` for which `ceil(displayWidth / d) ≥ target.width` and
    /// `ceil(displayHeight / d) ≥ target.height`, comparing in display orientation. Returns 1 for
    /// formats other than JPEG, which have no DCT scaling. Non-positive target dimensions count as 1.
    public static func jpegScaleDenominator(for info: ImageInfo, target: PixelSize) -> Int {
        guard info.format == .jpeg else { return 1 }
        let wanted = (width: max(target.width, 1), height: max(target.height, 1))
        for denominator in [8, 4, 2] {
            let width = (info.displayWidth + denominator - 1) / denominator
            let height = (info.displayHeight + denominator - 1) / denominator
            if width >= wanted.width && height >= wanted.height {
                return denominator
            }
        }
        return 1
    }
}
