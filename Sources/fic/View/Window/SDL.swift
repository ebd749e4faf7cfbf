#if Tool
import CSDL2
import FICCore

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
#endif
