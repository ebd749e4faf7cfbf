import Glibc

/// A shared library loaded when a feature first needs it, rather than by the dynamic loader at
/// every start of the process: a command that never opens a window does not pay for loading the
/// window system's libraries (SDL2 brings some forty: X11, Wayland, PulseAudio, D-Bus…).
///
/// The library stays loaded for the life of the process (its functions may be called from any
/// thread at any time after), so it is never closed.
package struct SharedLibrary: Sendable {
    /// The file name it was loaded by.
    package let name: String
    /// dlopen's handle, kept as its bit pattern: it is valid for the life of the process and
    /// dlsym may be called with it from any thread.
    private let handle: UInt

    /// Loads the first of `names` (file names the dynamic loader searches for, such as
    /// `libSDL2-2.0.so.0`) that loads.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` with the loader's reason for each name.
    package init(firstOf names: [String]) throws {
        var reasons: [String] = []
        for name in names {
            if let h = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                self.name = name
                handle = UInt(bitPattern: h)
                return
            }
            reasons.append(dlerror().map { String(cString: $0) } ?? "\(name) could not be loaded")
        }
        throw ImageCacheError(.libraryUnavailable, "cannot load \(names.joined(separator: " or ")): \(reasons.joined(separator: "; "))")
    }

    /// The function `symbol` of the library, as the C function type `F`
    /// (`@convention(c) (…) -> …`): the caller states the type the library's header declares.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` when the library has no such symbol.
    package func function<F>(_ symbol: String, as type: F.Type = F.self) throws -> F {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: handle), symbol) else {
            throw ImageCacheError(.libraryUnavailable, "\(name) has no function \(symbol)")
        }
        return unsafeBitCast(address, to: F.self)
    }
}
