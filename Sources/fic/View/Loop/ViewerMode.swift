#if Tool
/// One of the viewer's modes (gallery, photo): it keeps its own state, acts on actions, moves on
/// with time, and draws a frame. Called on the viewer's thread only; must never wait on I/O or
/// decode anything in ``draw(into:)`` (except the gallery's conventional path, whose point is
/// to show what decoding on the frame path costs).
protocol ViewerMode: AnyObject {
    /// How the wheel and keys act in this mode.
    var bindings: WindowEvents.Bindings { get }
    /// The label of frames in the statistics when the script gives none.
    var defaultPhase: String { get }
    /// Whether nothing moves and nothing is being loaded (a script's `wait-idle` ends then).
    var isIdle: Bool { get }
    /// How many images the last frame showed on screen (a gallery's cells with their image;
    /// a script's `wait-shown` ends when it reaches a number). 0 in a mode without such images.
    var imagesShown: Int { get }

    /// Acts on an action (ignoring those that mean nothing in this mode).
    func handle(_ action: ViewerAction)
    /// Moves animations on by `seconds`.
    func advance(by seconds: Double)
    /// Draws the frame.
    func draw(into canvas: FrameCanvas)
    /// The mode's lines of the overlay.
    func overlayLines() -> [String]
    /// Called after a frame has been presented, with the time it was (for "first sharp frame").
    func framePresented(at nanoseconds: UInt64)
    /// The mode's figures for `--stats` (hits, misses, geometry, …), as JSON values.
    func statistics() -> [String: StatValue]
    /// Stops background work (loaders) before the viewer closes.
    func stop()
    /// Told when a script labels the frames that follow (counters can be kept per phase).
    func beginPhase(_ name: String)
}

extension ViewerMode {
    func beginPhase(_ name: String) {}
    var imagesShown: Int { 0 }
}

/// A JSON value of the `--stats` file.
enum StatValue: Encodable {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case doubles([Double])
    case object([String: StatValue])
    case array([StatValue])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let v): try container.encode(v)
        case .double(let v): try container.encode(v.isFinite ? v : 0)
        case .string(let v): try container.encode(v)
        case .bool(let v): try container.encode(v)
        case .doubles(let v): try container.encode(v.map { $0.isFinite ? $0 : 0 })
        case .object(let v): try container.encode(v)
        case .array(let v): try container.encode(v)
        }
    }
}
#endif
