/// The one rule every decoder that writes the stored orientation follows: its bitmap is marked
/// upright only when the stored orientation is upright and upright was asked for; once decoded,
/// it is turned upright when it was asked for and is not yet.
extension DecodedImage {
    /// A bitmap of `width × height` for a decode of `info` with `options`, in the stored
    /// orientation (see ``uprightIfAsked(_:)``).
    package convenience init(
        decoding info: ImageInfo, width: Int, height: Int, pixelFormat: PixelFormat,
        options: DecodingOptions, scaleDenominator: Int, zeroFilled: Bool
    ) throws {
        try self.init(
            allocating: width, height: height, pixelFormat: pixelFormat, source: info,
            isOrientationApplied: options.applyOrientation && info.orientation == .up,
            scaleDenominator: scaleDenominator, zeroFilled: zeroFilled)
    }

    /// This decode, turned upright when `options` ask for that and its stored orientation is not.
    package func uprightIfAsked(_ options: DecodingOptions) throws -> DecodedImage {
        options.applyOrientation && source.orientation != .up ? try OrientationTransform.apply(source.orientation, to: self) : self
    }
}
