import CSDL2
import FICCore

/// The SDL2 functions the viewer calls, loaded from libSDL2 when the first window opens.
///
/// `fic` does not link SDL2: linked, its forty-odd libraries (X11, Wayland, PulseAudio, D-Bus…)
/// would be mapped and relocated at every start of every command, a third of the start-up of a
/// command that never opens a window. The header still gives the types and constants; the
/// functions come from here, with the types SDL2's header declares.
struct SDL: Sendable {
    let setHint: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> SDL_bool
    let initialize: @convention(c) (UInt32) -> Int32
    let quit: @convention(c) () -> Void
    let getError: @convention(c) () -> UnsafePointer<CChar>?
    let getCurrentVideoDriver: @convention(c) () -> UnsafePointer<CChar>?
    let createWindow: @convention(c) (UnsafePointer<CChar>?, Int32, Int32, Int32, Int32, UInt32) -> OpaquePointer?
    let destroyWindow: @convention(c) (OpaquePointer?) -> Void
    let getWindowSurface: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<SDL_Surface>?
    let updateWindowSurface: @convention(c) (OpaquePointer?) -> Int32
    let createRGBSurfaceWithFormat: @convention(c) (UInt32, Int32, Int32, Int32, UInt32) -> UnsafeMutablePointer<SDL_Surface>?
    let freeSurface: @convention(c) (UnsafeMutablePointer<SDL_Surface>?) -> Void
    let upperBlit: @convention(c) (UnsafeMutablePointer<SDL_Surface>?, UnsafePointer<SDL_Rect>?, UnsafeMutablePointer<SDL_Surface>?, UnsafeMutablePointer<SDL_Rect>?) -> Int32
    let pollEvent: @convention(c) (UnsafeMutablePointer<SDL_Event>?) -> Int32
    let getMouseState: @convention(c) (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> UInt32

    private init(_ library: SharedLibrary) throws {
        setHint = try library.function("SDL_SetHint")
        initialize = try library.function("SDL_Init")
        quit = try library.function("SDL_Quit")
        getError = try library.function("SDL_GetError")
        getCurrentVideoDriver = try library.function("SDL_GetCurrentVideoDriver")
        createWindow = try library.function("SDL_CreateWindow")
        destroyWindow = try library.function("SDL_DestroyWindow")
        getWindowSurface = try library.function("SDL_GetWindowSurface")
        updateWindowSurface = try library.function("SDL_UpdateWindowSurface")
        createRGBSurfaceWithFormat = try library.function("SDL_CreateRGBSurfaceWithFormat")
        freeSurface = try library.function("SDL_FreeSurface")
        upperBlit = try library.function("SDL_UpperBlit")
        pollEvent = try library.function("SDL_PollEvent")
        getMouseState = try library.function("SDL_GetMouseState")
    }

    /// Loaded once, on first use: the functions, or why SDL2 is missing.
    private static let loaded = Result { try SDL(SharedLibrary(firstOf: ["libSDL2-2.0.so.0", "libSDL2.so"])) }

    /// The functions.
    ///
    /// - Throws: ``CLIError`` naming the library when SDL2 (Debian: libsdl2-2.0-0) is missing.
    static func functions() throws -> SDL {
        do {
            return try loaded.get()
        } catch {
            throw CLIError("fic view needs SDL2 (Debian: libsdl2-2.0-0): \(error)")
        }
    }

    /// SDL's message for the last failure.
    func lastError() -> String {
        getError().map { String(cString: $0) } ?? "no message"
    }
}
