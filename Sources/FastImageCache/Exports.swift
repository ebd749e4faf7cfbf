@_exported import ImageCodec
@_exported import ImageTable
