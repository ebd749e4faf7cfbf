#if HEIF
import CHeif

/// libheif's errors as the package's: what is wrong with the file, in words, with libheif's own
/// message appended (it names the box or the codec that failed).
enum HEIFError {
    /// The error for a libheif result other than OK, about a file of `format` ("HEIF", "AVIF").
    static func make(_ error: heif_error, format: String, maximumDimension: Int) -> ImageCacheError {
        let detail = error.message.map { String(cString: $0) } ?? ""
        let libheif = detail.isEmpty ? "libheif error \(error.code.rawValue)/\(error.subcode.rawValue)" : "libheif: \(detail)"
        switch (error.code, error.subcode) {
        case (heif_error_Invalid_input, heif_suberror_End_of_data):
            return ImageCacheError(
                .truncated, "The \(format) file ends before its data does (\(libheif)). The file was cut short; download or copy it again.")
        case (heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded):
            return ImageCacheError(
                .dimensionsTooLarge,
                "The \(format) file declares an image over \(maximumDimension) pixels wide or high (\(libheif)); it was refused before decoding. Raise DecodingOptions.maximumPixelCount if such images are expected (libheif accepts at most 32768 a side)."
            )
        case (heif_error_Memory_allocation_error, _):
            return ImageCacheError(.overMemoryBudget, "Decoding the \(format) image ran out of memory (\(libheif)).")
        case (heif_error_Unsupported_filetype, _), (heif_error_Unsupported_feature, _):
            return ImageCacheError(
                .unsupportedFormat,
                "The \(format) file uses something libheif \((heifLibrary.heif_get_version().map { String(cString: $0) } ?? "")) cannot decode (\(libheif))."
            )
        case (heif_error_Decoder_plugin_error, _):
            return ImageCacheError(
                .corruptData,
                "The \(format) image's compressed data could not be decoded (\(libheif)). The file is damaged; re-export the image.")
        default:
            return ImageCacheError(.corruptData, "The \(format) file is damaged (\(libheif)). Re-export the image.")
        }
    }

    /// Throws the error for `error` unless it is OK.
    static func check(_ error: heif_error, format: String, maximumDimension: Int) throws {
        guard error.code != heif_error_Ok else { return }
        throw make(error, format: format, maximumDimension: maximumDimension)
    }
}
#endif
