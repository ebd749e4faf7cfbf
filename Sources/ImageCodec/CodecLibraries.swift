import CAvif
import CHeif
import CJxl
import FICCore

/// The codec libraries loaded when a file of their format is first opened rather than linked:
/// libheif (with libde265, x265, dav1d and libaom behind it), libavif (with dav1d and libaom
/// behind it) and libjxl (with highway and brotli). Linked, they were loaded and initialised at the start of every process that uses
/// ImageCodec, whatever it decodes: a quarter of `fic`'s start-up.
///
/// Each library's functions come as one C struct whose fields have the header's own types
/// (`Sources/CHeif/shim.h`, `Sources/CAvif/shim.h`, `Sources/CJxl/shim.h`), so a call has the same checks as a direct one.
enum CodecLibraries {
    static let heif: Result<fic_heif_functions, ImageCacheError> = load(["libheif.so.1"], what: "HEIC and AVIF", package: "libheif1") {
        fic_heif_load($0, $1)
    }

    /// libavif 0.11 only (soname 15): the function table's structures have that version's layout.
    static let avif: Result<fic_avif_functions, ImageCacheError> = load(["libavif.so.15"], what: "AVIF sequences", package: "libavif15") {
        fic_avif_load($0, $1)
    }

    static let jxl: Result<fic_jxl_functions, ImageCacheError> = load(["libjxl.so.0.7", "libjxl.so"], what: "JPEG XL", package: "libjxl0.7") { handle, functions in
        // The parallel runner lives in a library of its own, loaded beside the decoder's.
        guard let threads = try? SharedLibrary(firstOf: ["libjxl_threads.so.0.7", "libjxl_threads.so"]) else {
            return UnsafeRawPointer(StaticString("libjxl_threads.so.0.7").utf8Start).assumingMemoryBound(to: CChar.self)
        }
        return threads.withHandle { fic_jxl_load_runner($0, functions) } ?? fic_jxl_load(handle, functions)
    }

    /// libheif's functions, loading libheif if it is not yet.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` naming the library and its Debian package.
    static func requireHEIF() throws -> fic_heif_functions { try heif.get() }

    /// libavif's functions, loading libavif if it is not yet.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` naming the library and its Debian package.
    static func requireAVIF() throws -> fic_avif_functions { try avif.get() }

    /// libjxl's functions, loading libjxl if it is not yet.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` naming the library and its Debian package.
    static func requireJXL() throws -> fic_jxl_functions { try jxl.get() }

    /// The table of the first of `names` that loads, or why there is none, in words that say
    /// which files cannot be decoded and which Debian package brings the library.
    private static func load<Functions>(_ names: [String], what: String, package: String,
                                        _ fill: (UnsafeMutableRawPointer, UnsafeMutablePointer<Functions>) -> UnsafePointer<CChar>?) -> Result<Functions, ImageCacheError> {
        do {
            return .success(try SharedLibrary.functions(firstOf: names, fill))
        } catch {
            return .failure(ImageCacheError(.libraryUnavailable, "\(what) files cannot be decoded (Debian: \(package))", underlying: error))
        }
    }
}

/// libheif's functions, for code that runs on a ``HEIFFile``: its opening loaded them (or threw).
var heifLibrary: fic_heif_functions {
    guard case .success(let functions) = CodecLibraries.heif else {
        preconditionFailure("libheif is called before a HEIFFile was opened")
    }
    return functions
}

/// libavif's functions, for code that runs on an ``AVIFAnimation``: its opening loaded them (or threw).
var avifLibrary: fic_avif_functions {
    guard case .success(let functions) = CodecLibraries.avif else {
        preconditionFailure("libavif is called before an AVIFAnimation was opened")
    }
    return functions
}

/// libjxl's functions, for code that runs on a ``JXLReader``: its creation loaded them (or threw).
var jxlLibrary: fic_jxl_functions {
    guard case .success(let functions) = CodecLibraries.jxl else {
        preconditionFailure("libjxl is called before a JXLReader was made")
    }
    return functions
}
