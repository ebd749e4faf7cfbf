import CCairo

extension ImageCacheError {
    /// Wraps any error thrown while making an image: errors of the package keep their code (and
    /// gain the format), a decoding failure becomes `.decodingFailed` with the decoder's error as
    /// its cause, cancellation becomes `.cancelled`, anything else (a provider's or an entity's
    /// own error) becomes `code`.
    static func wrap(_ error: any Error, format: String?, code: Code) -> ImageCacheError {
        if let e = error as? ImageCacheError { return e.adding(format: format) }
        if error is CancellationError { return ImageCacheError(.cancelled, "the request was cancelled", format: format) }
        return ImageCacheError(
            code, code == .drawingFailed ? "drawing the image failed" : "the source image is unavailable", format: format, underlying: error
        )
    }

    /// A decoder's error as the cache reports it: `.decodingFailed`, caused by the decoder's error.
    static func decoding(_ error: any Error, format: String?) -> ImageCacheError {
        if let e = error as? ImageCacheError, e.code == .decodingFailed || e.code == .cancelled { return e.adding(format: format) }
        let path = (error as? ImageCacheError)?.path
        return ImageCacheError(.decodingFailed, "the source image could not be decoded", path: path, format: format, underlying: error)
    }

    /// An error for a cairo status other than success.
    static func cairo(_ status: cairo_status_t, while action: String) -> ImageCacheError {
        let text = String(cString: cairo_status_to_string(status))
        return ImageCacheError(.drawingFailed, "cairo failed while \(action): \(text)")
    }
}
