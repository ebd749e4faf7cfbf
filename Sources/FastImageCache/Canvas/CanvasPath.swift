import Foundation

/// A resolution-independent path in points, replayed into cairo when filled, stroked or used as a clip.
///
/// Coordinates use the canvas's system: origin at the top-left, y pointing down.
public struct CanvasPath: Sendable, Hashable {
    /// One recorded path operation.
    enum Element: Sendable, Hashable {
        case move(CGPoint)
        case line(CGPoint)
        case curve(to: CGPoint, control1: CGPoint, control2: CGPoint)
        case arc(center: CGPoint, radius: CGFloat, startAngle: CGFloat, endAngle: CGFloat, clockwise: Bool)
        case close
    }

    /// The recorded operations, in order.
    private(set) var elements: [Element] = []

    /// Creates an empty path.
    public init() {}

    /// Whether the path has no operations.
    public var isEmpty: Bool { elements.isEmpty }

    /// Starts a new subpath at `point`.
    public mutating func move(to point: CGPoint) {
        elements.append(.move(point))
    }

    /// Adds a straight line from the current point to `point` (or starts a subpath there if there
    /// is no current point).
    public mutating func addLine(to point: CGPoint) {
        elements.append(.line(point))
    }

    /// Adds a cubic Bézier curve from the current point to `point`.
    public mutating func addCurve(to point: CGPoint, control1: CGPoint, control2: CGPoint) {
        elements.append(.curve(to: point, control1: control1, control2: control2))
    }

    /// Adds a circular arc; a straight line joins the current point, if any, to the arc's start.
    ///
    /// Angles are in radians, 0 pointing along +x. Because y points down, `clockwise: true` sweeps
    /// towards increasing angles, which appears clockwise on screen (as with UIKit's `UIBezierPath`).
    public mutating func addArc(
        center: CGPoint, radius: CGFloat, startAngle: CGFloat, endAngle: CGFloat, clockwise: Bool
    ) {
        elements.append(
            .arc(center: center, radius: radius, startAngle: startAngle, endAngle: endAngle, clockwise: clockwise))
    }

    /// Adds `rect` as a closed subpath. Null and infinite rectangles are ignored.
    public mutating func addRect(_ rect: CGRect) {
        guard let rect = Self.usable(rect) else { return }
        move(to: CGPoint(x: rect.minX, y: rect.minY))
        addLine(to: CGPoint(x: rect.maxX, y: rect.minY))
        addLine(to: CGPoint(x: rect.maxX, y: rect.maxY))
        addLine(to: CGPoint(x: rect.minX, y: rect.maxY))
        closeSubpath()
    }

    /// Adds `rect` with circular corners as a closed subpath.
    ///
    /// `cornerRadius` is clamped to `0...min(width, height) / 2`; a radius of 0 adds a plain rectangle.
    public mutating func addRoundedRect(_ rect: CGRect, cornerRadius: CGFloat) {
        guard let rect = Self.usable(rect) else { return }
        let radius = min(max(cornerRadius, 0), rect.width / 2, rect.height / 2)
        guard radius > 0 else { return addRect(rect) }
        let half = CGFloat.pi / 2
        move(to: CGPoint(x: rect.minX + radius, y: rect.minY))
        addArc(
            center: CGPoint(x: rect.maxX - radius, y: rect.minY + radius), radius: radius,
            startAngle: -half, endAngle: 0, clockwise: true)
        addArc(
            center: CGPoint(x: rect.maxX - radius, y: rect.maxY - radius), radius: radius,
            startAngle: 0, endAngle: half, clockwise: true)
        addArc(
            center: CGPoint(x: rect.minX + radius, y: rect.maxY - radius), radius: radius,
            startAngle: half, endAngle: 2 * half, clockwise: true)
        addArc(
            center: CGPoint(x: rect.minX + radius, y: rect.minY + radius), radius: radius,
            startAngle: 2 * half, endAngle: 3 * half, clockwise: true)
        closeSubpath()
    }

    /// Adds the ellipse inscribed in `rect` as a closed subpath (four cubic Bézier curves).
    public mutating func addEllipse(in rect: CGRect) {
        guard let rect = Self.usable(rect) else { return }
        // Control-point distance that makes a cubic Bézier quarter curve closest to a circle.
        let kappa: CGFloat = 0.552_284_749_830_793_6
        let rx = rect.width / 2, ry = rect.height / 2
        let cx = rect.midX, cy = rect.midY
        let kx = kappa * rx, ky = kappa * ry
        move(to: CGPoint(x: cx + rx, y: cy))
        addCurve(
            to: CGPoint(x: cx, y: cy + ry),
            control1: CGPoint(x: cx + rx, y: cy + ky), control2: CGPoint(x: cx + kx, y: cy + ry))
        addCurve(
            to: CGPoint(x: cx - rx, y: cy),
            control1: CGPoint(x: cx - kx, y: cy + ry), control2: CGPoint(x: cx - rx, y: cy + ky))
        addCurve(
            to: CGPoint(x: cx, y: cy - ry),
            control1: CGPoint(x: cx - rx, y: cy - ky), control2: CGPoint(x: cx - kx, y: cy - ry))
        addCurve(
            to: CGPoint(x: cx + rx, y: cy),
            control1: CGPoint(x: cx + kx, y: cy - ry), control2: CGPoint(x: cx + rx, y: cy - ky))
        closeSubpath()
    }

    /// Closes the current subpath with a straight line back to its start.
    public mutating func closeSubpath() {
        elements.append(.close)
    }

    /// A path holding `rect` with circular corners (see ``addRoundedRect(_:cornerRadius:)``).
    public static func roundedRect(_ rect: CGRect, cornerRadius: CGFloat) -> CanvasPath {
        var path = CanvasPath()
        path.addRoundedRect(rect, cornerRadius: cornerRadius)
        return path
    }

    /// A path holding `rect`.
    public static func rect(_ rect: CGRect) -> CanvasPath {
        var path = CanvasPath()
        path.addRect(rect)
        return path
    }

    /// A path holding the ellipse inscribed in `rect`.
    public static func ellipse(in rect: CGRect) -> CanvasPath {
        var path = CanvasPath()
        path.addEllipse(in: rect)
        return path
    }

    /// `rect` standardized, or `nil` when it is null or infinite.
    private static func usable(_ rect: CGRect) -> CGRect? {
        rect.isNull || rect.isInfinite ? nil : rect.standardized
    }
}
