import FICCore

#if JPEGXL
import CJxl

extension CodecLibraries {
    static let jxl: Result<fic_jxl_functions, ImageCacheError> = load(["libjxl.so.0.7", "libjxl.so"], what: "JPEG XL", package: "libjxl0.7")
    { handle, functions in
        // The parallel runner lives in a library of its own, loaded beside the decoder's.
        guard let threads = try? SharedLibrary(firstOf: ["libjxl_threads.so.0.7", "libjxl_threads.so"]) else {
            return UnsafeRawPointer(StaticString("libjxl_threads.so.0.7").utf8Start).assumingMemoryBound(to: CChar.self)
        }
        return threads.withHandle { fic_jxl_load_runner($0, functions) } ?? fic_jxl_load(handle, functions)
    }

    /// libjxl's functions, loading libjxl if it is not yet.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` naming the library and its Debian package.
    static func requireJXL() throws -> fic_jxl_functions { try jxl.get() }
}

/// libjxl's functions, for code that runs on a ``JXLReader``: its creation loaded them (or threw).
var jxlLibrary: fic_jxl_functions {
    guard case .success(let functions) = CodecLibraries.jxl else {
        preconditionFailure("libjxl is called before a JXLReader was made")
    }
    return functions
}
#endif
