/// An RGBA color with components in `0...1`, not premultiplied.
///
/// Components outside `0...1` are clamped when the color is used for drawing.
public struct CanvasColor: Sendable, Hashable {
    /// The red component, `0...1`.
    public var red: Double
    /// The green component, `0...1`.
    public var green: Double
    /// The blue component, `0...1`.
    public var blue: Double
    /// The opacity, `0...1` (0 is fully transparent).
    public var alpha: Double

    /// Creates a color from red, green, blue and alpha components in `0...1`.
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Creates a gray color whose red, green and blue components all equal `white`.
    public init(white: Double, alpha: Double = 1) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    /// Opaque black.
    public static let black = CanvasColor(white: 0)
    /// Opaque white.
    public static let white = CanvasColor(white: 1)
    /// Fully transparent black.
    public static let clear = CanvasColor(white: 0, alpha: 0)
}
