#if Tool
import FICCommandLine
import CSDL2
import FICCore
import Logging

/// SDL2, loaded when the viewer opens its first window rather than linked: linked, it and the
/// forty-odd libraries it needs (X11, Wayland, PulseAudio, D-Bus…) would be loaded at the start
/// of every command. The functions come as the C table of `Sources/CSDL2/shim.h`, whose fields
/// have SDL2's own types.
enum SDL {
    private static let loaded = Result { try SharedLibrary.functions(firstOf: ["libSDL2-2.0.so.0", "libSDL2.so"]) { fic_sdl_load($0, $1) } }

    /// SDL2's functions.
    ///
    /// - Throws: ``CLIError`` naming the library when SDL2 (Debian: libsdl2-2.0-0) cannot be loaded.
    static func functions() throws -> fic_sdl_functions {
        do {
            return try loaded.get()
        } catch {
            throw CLIError("fic view needs SDL2 (Debian: libsdl2-2.0-0): \(error)")
        }
    }
}

extension fic_sdl_functions {
    /// SDL's message for the last failure.
    func lastError() -> String {
        SDL_GetError().map { String(cString: $0) } ?? "no message"
    }
}

extension SDL {
    /// The video driver SDL is told to use, from the displays the environment names: `x11` when
    /// only an X display is named, `wayland` when only a Wayland one is, nil (SDL's own order)
    /// when both are or when `SDL_VIDEODRIVER` chooses. So SDL never asks a library for a display
    /// that cannot be reached: libwayland, asked without one, prints to the terminal itself
    /// ("XDG_RUNTIME_DIR is invalid or not set"), before the viewer's message.
    ///
    /// A Wayland display is named by `WAYLAND_SOCKET`, or by `WAYLAND_DISPLAY` when it is a path
    /// or `XDG_RUNTIME_DIR`, the folder of its socket, is set; an X display by `DISPLAY`.
    ///
    /// - Throws: `noDisplay` when no display is named at all (SDL is then not even loaded).
    static func videoDriver(environment: (String) -> String?, noDisplay: @autoclosure () -> CLIError) throws -> String? {
        func named(_ variable: String) -> Bool { !(environment(variable) ?? "").isEmpty }
        if named("SDL_VIDEODRIVER") { return nil }
        let wayland =
            named("WAYLAND_SOCKET")
            || named("WAYLAND_DISPLAY") && (environment("WAYLAND_DISPLAY")!.hasPrefix("/") || named("XDG_RUNTIME_DIR"))
        switch (named("DISPLAY"), wayland) {
        case (false, false): throw noDisplay()
        case (true, false): return "x11"
        case (false, true): return "wayland"
        case (true, true): return nil
        }
    }

    /// Sends SDL's own log messages to the `fic.view.sdl` logger at debug level instead of the
    /// terminal, where only the viewer's own messages go (swift-log's default handler shows
    /// nothing below info).
    static func routeLogs(of sdl: fic_sdl_functions) {
        sdl.SDL_LogSetOutputFunction(
            { _, category, priority, message in
                let text = message.map { String(cString: $0) } ?? ""
                sdlLogger.debug("\(text)", metadata: ["category": "\(category)", "priority": "\(priority.rawValue)"])
            }, nil)
    }
}

/// Where SDL's log messages go (``SDL/routeLogs(of:)``): a global, as SDL's C callback can
/// capture nothing.
private let sdlLogger = Logger(label: "fic.view.sdl")
#endif
