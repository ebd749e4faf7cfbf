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

    /// Calls `body` with dlopen's handle, for C code that looks up a table of functions itself
    /// (`dlsym`); the handle stays valid after `body` returns, for the life of the process.
    package func withHandle<R>(_ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawPointer(bitPattern: handle)!)
    }

    /// Loads the first of `names` that loads and fills a C table of its functions with `fill`
    /// (a shim's loader: it looks each function up with `dlsym` and returns the name of the first
    /// one missing, or NULL). The table's fields have the header's own types, so calls through it
    /// are checked as direct calls are.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` naming the library and what it lacks.
    package static func functions<Table>(
        firstOf names: [String], _ fill: (UnsafeMutableRawPointer, UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?
    ) throws -> Table {
        let library = try SharedLibrary(firstOf: names)
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        defer { table.deallocate() }
        if let missing = library.withHandle({ fill($0, table) }) {
            throw ImageCacheError(.libraryUnavailable, "\(library.name) lacks \(String(cString: missing))")
        }
        return table.move()
    }
}
