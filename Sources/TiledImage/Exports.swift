@_exported import FICCore
@_exported import ImageCodec

/// Runs `body`, whose closures can only throw untyped errors, keeping ``ImageCacheError`` typed.
@inline(__always)
func typed<R>(_ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as ImageCacheError {
        throw error
    } catch {
        throw ImageCacheError(.io, "unexpected failure", underlying: error)
    }
}
