#if Tool
import FICCommandLine
import CSDL2
import FastImageCache
import ImageCodec

/// A desktop window (SDL2) and the memory the viewer draws a frame into.
///
/// Frames are drawn into the window's own surface when it is 32-bit XRGB (what X11 servers,
/// Xvfb included, give a 24-bit screen), so presenting is a single `SDL_UpdateWindowSurface`;
/// any other window format gets a 32-bit shadow surface that is converted when presenting.
/// Every call must come from the thread that created the window.
final class ViewerWindow {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// SDL2's functions, loaded by the first window.
    let sdl: fic_sdl_functions
    private let window: OpaquePointer
    private var windowSurface: UnsafeMutablePointer<SDL_Surface>
    /// The surface frames are drawn into: the window's own, or a shadow one.
    private(set) var frame: UnsafeMutablePointer<SDL_Surface>
    private var shadow: UnsafeMutablePointer<SDL_Surface>?
    /// The frame's pixels as a cairo surface (BGRX, cairo `RGB24`).
    private(set) var canvas: CairoImageSurface

    /// Opens a `width × height` window titled `title`.
    ///
    /// - Throws: ``CLIError`` when there is no display (no `DISPLAY`, or the X server refused).
    init(title: String, width: Int, height: Int) throws {
        let noDisplay = Self.noDisplay(width: width, height: height)
        let driver = try SDL.videoDriver(environment: { getenv($0).map { String(cString: $0) } }, noDisplay: noDisplay)
        let sdl = try SDL.functions()
        self.sdl = sdl
        SDL.routeLogs(of: sdl)
        if let driver { _ = sdl.SDL_SetHint(SDL_HINT_VIDEODRIVER, driver) }
        _ = sdl.SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        _ = sdl.SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0")
        // The window's own framebuffer (X11: shared-memory images), not a GL texture: no GL
        // driver is loaded (software GL alone maps ~60 MB), and presenting is one copy.
        _ = sdl.SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        guard sdl.SDL_Init(SDL_INIT_VIDEO) == 0 else {
            throw CLIError(
                "cannot open a window: \(sdl.lastError()); run it on a desktop, or under a virtual display with `xvfb-run -a -s \"-screen 0 \(width)x\(height)x24\" fic view …`"
            )
        }
        // Without a display SDL falls back to drivers that show nothing; use them only when asked.
        let current = sdl.SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        if ["offscreen", "dummy", "evdev"].contains(current), getenv("SDL_VIDEODRIVER") == nil {
            sdl.SDL_Quit()
            throw noDisplay
        }
        guard
            let window = sdl.SDL_CreateWindow(
                title, Int32(SDL_WINDOWPOS_CENTERED_MASK), Int32(SDL_WINDOWPOS_CENTERED_MASK), Int32(width), Int32(height),
                SDL_WINDOW_SHOWN.rawValue)
        else {
            let message = sdl.lastError()
            sdl.SDL_Quit()
            throw CLIError("cannot create a \(width)×\(height) window: \(message)")
        }
        self.window = window
        self.width = width
        self.height = height
        do {
            (windowSurface, shadow) = try Self.surfaces(of: window, width: width, height: height, sdl)
            frame = shadow ?? windowSurface
            canvas = try Self.canvas(over: frame)
        } catch {
            sdl.SDL_DestroyWindow(window)
            sdl.SDL_Quit()
            throw error
        }
    }

    /// Why no window opens where the environment names no display, and how to get one.
    private static func noDisplay(width: Int, height: Int) -> CLIError {
        CLIError(
            "cannot open a window: there is no display (neither DISPLAY nor WAYLAND_DISPLAY, with the XDG_RUNTIME_DIR its socket is in, is set); run it on a desktop, or under a virtual display with `xvfb-run -a -s \"-screen 0 \(width)x\(height)x24\" fic view …`"
        )
    }

    deinit {
        if let shadow { sdl.SDL_FreeSurface(shadow) }
        sdl.SDL_DestroyWindow(window)
        sdl.SDL_Quit()
    }

    /// The window's surface, and a shadow surface when the window's format is not 32-bit XRGB.
    private static func surfaces(of window: OpaquePointer, width: Int, height: Int, _ sdl: fic_sdl_functions) throws -> (
        UnsafeMutablePointer<SDL_Surface>, UnsafeMutablePointer<SDL_Surface>?
    ) {
        guard let surface = sdl.SDL_GetWindowSurface(window) else {
            throw CLIError("the window has no drawable surface: \(sdl.lastError())")
        }
        let format = surface.pointee.format.pointee.format
        if format == SDL_PIXELFORMAT_RGB888.rawValue || format == SDL_PIXELFORMAT_ARGB8888.rawValue,
            Int(surface.pointee.w) == width, Int(surface.pointee.h) == height
        {
            return (surface, nil)
        }
        guard let shadow = sdl.SDL_CreateRGBSurfaceWithFormat(0, Int32(width), Int32(height), 32, SDL_PIXELFORMAT_RGB888.rawValue) else {
            throw CLIError("cannot allocate a \(width)×\(height) frame: \(sdl.lastError())")
        }
        return (surface, shadow)
    }

    private static func canvas(over surface: UnsafeMutablePointer<SDL_Surface>) throws -> CairoImageSurface {
        guard let pixels = surface.pointee.pixels else { throw CLIError("the window surface has no pixels") }
        return try CairoImageSurface(
            pixels: pixels, width: Int(surface.pointee.w), height: Int(surface.pointee.h), bytesPerRow: Int(surface.pointee.pitch),
            format: .bgrx32)
    }

    /// Hands the frame to the display.
    func present() {
        canvas.flush()
        if let shadow {
            _ = sdl.SDL_UpperBlit(shadow, nil, windowSurface, nil)
        }
        _ = sdl.SDL_UpdateWindowSurface(window)
    }

    /// Calls `body` with the frame's pixels (BGRX, rows `bytesPerRow` apart).
    func withFramePixels<R>(_ body: (_ pixels: UnsafeRawPointer, _ bytesPerRow: Int) throws -> R) rethrows -> R {
        canvas.flush()
        return try body(UnsafeRawPointer(frame.pointee.pixels), Int(frame.pointee.pitch))
    }

    /// Writes the frame as a PNG file.
    func writePNG(to path: String) throws {
        try withFramePixels { pixels, bytesPerRow in
            try PNGEncoder.write(pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, format: .bgrx32, to: path)
        }
    }
}
#endif
