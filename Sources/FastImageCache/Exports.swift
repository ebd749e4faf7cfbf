@_exported import ImageCodec
@_exported import ImageTable
@_exported import FICCore
