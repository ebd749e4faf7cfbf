import ImageCodec

/// How the tiles of a pyramidal TIFF are stored.
public enum PyramidTIFFCompression: Sendable, Hashable {
    /// Each tile a complete baseline JPEG (4:2:0, YCbCr, Huffman tables made for the tile), for
    /// opaque images only: JPEG has no alpha. `quality` is libjpeg's 1…100. When a build's
    /// destination names no compression, level 0 of an upright 4:2:0 or grey JPEG source takes the
    /// source's own quantisation tables instead (its blocks are the source's blocks: the tiles come
    /// back as large as the source and nearer its decode than quality 95's).
    case jpeg(quality: Int)
    /// Each tile one zlib stream (TIFF's Adobe deflate) of RGB, or RGBA with associated alpha:
    /// lossless, for images with alpha.
    case deflate
    /// Raw RGB or RGBA samples.
    case none

    /// JPEG at the default quality, 95, chosen on the shared test photos (astronaut, chelsea,
    /// coffee, hubble, retina, rocket), every level of each: at 95 the luma of every level stays at
    /// 42.5 dB or more from the source tiles, where 90 lets hubble's and coffee's fall to 37.8 and
    /// 38.4 dB (about 40 % fewer bytes than 95). The colour samples stay at 32.8 dB or more: 4:2:0
    /// averages chroma over 2 × 2 pixels, which alone holds detailed photos (rocket, hubble) to
    /// 35–37 dB even at quality 100; only 4:4:4 tiles would reach 40 dB there.
    public static let jpeg = PyramidTIFFCompression.jpeg(quality: 95)

    /// Whether tiles are JPEG (at any quality). Patterns name the case's label: a bare `.jpeg`
    /// could be taken for the ``jpeg`` constant and compared by value.
    public var isJPEG: Bool {
        if case .jpeg(quality: _) = self { true } else { false }
    }

    /// The TIFF Compression tag's value.
    var tagValue: Int {
        switch self {
        case .jpeg(quality: _): TIFFTag.Compression.jpeg
        case .deflate: TIFFTag.Compression.adobeDeflate
        case .none: TIFFTag.Compression.none
        }
    }
}
