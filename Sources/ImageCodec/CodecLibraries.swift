import FICCore

/// The codec libraries loaded when a file of their format is first opened rather than linked:
/// libheif (with libde265, x265, dav1d and libaom behind it), libavif (with dav1d and libaom
/// behind it) and libjxl (with highway and brotli). Linked, they were loaded and initialised at the start of every process that uses
/// ImageCodec, whatever it decodes: a quarter of `fic`'s start-up.
///
/// Each library's functions come as one C struct whose fields have the header's own types
/// (`Sources/CHeif/shim.h`, `Sources/CAvif/shim.h`, `Sources/CJxl/shim.h`), so a call has the same
/// checks as a direct one. Each format's libraries are declared in its folder
/// (`Formats/HEIF/CodecLibraries+HEIF.swift`, `Formats/JPEGXL/CodecLibraries+JPEGXL.swift`).
enum CodecLibraries {
    /// The table of the first of `names` that loads, or why there is none, in words that say
    /// which files cannot be decoded and which Debian package brings the library.
    static func load<Functions>(
        _ names: [String], what: String, package: String,
        _ fill: (UnsafeMutableRawPointer, UnsafeMutablePointer<Functions>) -> UnsafePointer<CChar>?
    ) -> Result<Functions, ImageCacheError> {
        do {
            return .success(try SharedLibrary.functions(firstOf: names, fill))
        } catch {
            return .failure(ImageCacheError(.libraryUnavailable, "\(what) files cannot be decoded (Debian: \(package))", underlying: error))
        }
    }
}
