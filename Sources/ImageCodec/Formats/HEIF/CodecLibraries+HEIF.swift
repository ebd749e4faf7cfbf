#if HEIF
import CAvif
import CHeif

extension CodecLibraries {
    static let heif: Result<fic_heif_functions, ImageCacheError> = load(["libheif.so.1"], what: "HEIC and AVIF", package: "libheif1") {
        fic_heif_load($0, $1)
    }

    /// libavif 0.11 only (soname 15): the function table's structures have that version's layout.
    static let avif: Result<fic_avif_functions, ImageCacheError> = load(["libavif.so.15"], what: "AVIF sequences", package: "libavif15") {
        fic_avif_load($0, $1)
    }

    /// libheif's functions, loading libheif if it is not yet.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` naming the library and its Debian package.
    static func requireHEIF() throws -> fic_heif_functions { try heif.get() }

    /// libavif's functions, loading libavif if it is not yet.
    ///
    /// - Throws: ``ImageCacheError`` `.libraryUnavailable` naming the library and its Debian package.
    static func requireAVIF() throws -> fic_avif_functions { try avif.get() }
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
#endif
