import FICCore
import SystemPackage

/// A format whose decoder this build leaves out, because the package trait that compiles it in is
/// off (an application's `.package(…, traits: [])`): its files are still recognised by their
/// first bytes, so that they are refused by name, with the trait that reads them, rather than
/// called unrecognised or handed to another decoder.
package protocol DisabledFormatDecoder: ImageFormatDecoder {
    /// The package trait that compiles the format's decoder in.
    static var trait: String { get }
}

extension DisabledFormatDecoder {
    /// Nothing: the format is not decoded.
    package static var capabilities: DecoderCapabilities {
        DecoderCapabilities(
            reducedDecode: "none: not decoded by this build (package trait \(trait) off)", streamsRows: false, maximumDimension: 0)
    }

    /// Why a file of the format is refused: its format, and the trait that decodes it.
    package static var refusal: ImageCacheError {
        ImageCacheError(
            .unsupportedFormat,
            "The input is a \(format.name) file, which this build does not decode: FastImageCache's package trait \"\(trait)\" is off. "
                + "Enable it where the application depends on the package, for example .package(url: …, from: …, traits: [.defaults]) or traits: [\"\(trait)\"]."
        )
    }

    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo { throw refusal }
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage { throw refusal }
    package static func estimatedMemory(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        throw refusal
    }
    package static func makeRowDecoder(sink: any RowSink, options: RowDecodingOptions) throws -> any RowDecoder { throw refusal }
    package static func decodeRows(ofFile file: FileDescriptor, from offset: Int, size: Int, sink: any RowSink, options: RowDecodingOptions)
        throws -> RowDecoderStatistics
    {
        throw refusal
    }
}
