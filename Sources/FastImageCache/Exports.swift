// The types of the lower modules that FastImageCache's public API hands out or takes, re-exported
// one by one so that `import FastImageCache` is enough to use that API, and nothing else of those
// modules (the storage engine, the decoders, the system-call wrappers) becomes part of it. A type
// is listed when a public declaration of this module names it, or when a listed type's public
// properties do (a value a caller is given can be named). Foundation's types (URL, CGSize,
// CGRect, Date) and swift-log's `Logger` are not re-exported: applications import those packages
// themselves.

// Every error the cache throws.
@_exported import struct FICCore.ImageCacheError

// `ImageEntity.draw(_:format:canvas:)` and `ImageCache.setImage(_:for:format:)` take a decoded image.
@_exported import class ImageCodec.DecodedImage
// `DecodedImage.source`: what the decoder read from the file's header.
@_exported import struct ImageCodec.ImageInfo
@_exported import enum ImageCodec.ImageFileFormat
@_exported import enum ImageCodec.ImageOrientation
@_exported import enum ImageCodec.ColorDescription
// `SourceImage.bytes(_:)`: a provider's encoded bytes.
@_exported import class ImageCodec.ImageBytes
// `ImageFormat.pixelSize` and `ImageCache.decodeSize(forFamiliesOf:)`.
@_exported import struct ImageCodec.PixelSize
// The pixel layout of `ImageCanvas.init(pixels:…)` and `CairoImageSurface`.
@_exported import enum ImageCodec.PixelFormat

// `ImageCache.init(…options:…)`.
@_exported import struct ImageTable.TableOpenOptions
// `ImageCache.openReports`: what opening each table found.
@_exported import struct ImageTable.TableOpenReport
// `ImageCache.openProcesses(format:)`: who else has a table open.
@_exported import struct ImageTable.TableProcess
// `ImageCache.entries(format:)` and `ImageCache.verify(repair:)`.
@_exported import struct ImageTable.TableEntry
// `TableEntry.entity` and `TableEntry.source`.
@_exported import struct ImageTable.TableKey
