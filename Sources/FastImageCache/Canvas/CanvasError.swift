import CCairo

/// An error creating a canvas or a cairo surface, or reported by cairo while drawing.
public struct CanvasError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// cairo reported an error status; the associated value is cairo's description of it.
        case cairoError(String)
        /// The pixel format cannot be used here (cairo cannot draw into ``PixelFormat/gray8`` as luminance).
        case unsupportedFormat(PixelFormat)
        /// `bytesPerRow` is smaller than cairo's stride for the width, or not a multiple of 4.
        case invalidStride
        /// The width or height is not positive, or too large for cairo.
        case invalidSize
        /// The scale is not a positive, finite number.
        case invalidScale
        /// The pixel memory is not aligned as the format requires (4 bytes for 32-bit, 2 for 16-bit pixels).
        case misalignedPixels
    }

    /// What went wrong.
    public let kind: Kind
    /// A sentence describing the error.
    public let message: String

    /// Creates an error.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }

    /// An error for a cairo status other than success.
    static func cairo(_ status: cairo_status_t, while action: String) -> CanvasError {
        let text = String(cString: cairo_status_to_string(status))
        return CanvasError(kind: .cairoError(text), message: "cairo failed while \(action): \(text)")
    }
}
