import ImageCodec

/// How the tiles of a pyramidal TIFF are stored.
public enum PyramidTIFFCompression: Sendable, Hashable {
    /// Each tile a complete baseline JPEG (4:2:0, YCbCr, Huffman tables made for its row), for
    /// opaque images only: JPEG has no alpha. `quality` is libjpeg's 1…100; `chromaQuality`, when
    /// given, that of the colour samples' table (libjpeg's scaling of JPEG's example chrominance
    /// table), which 4:2:0 has already averaged over 2 × 2 pixels. When a build's
    /// destination names no compression, level 0 of an upright YCbCr or grey JPEG source takes the
    /// source's own quantisation tables instead (its luma blocks are the source's blocks: the tiles
    /// come back as large as the source and nearer its decode than quality 95's).
    case jpeg(quality: Int, chromaQuality: Int? = nil)
    /// Each tile one zlib stream (TIFF's Adobe deflate) of RGB, or RGBA with associated alpha:
    /// lossless, for images with alpha.
    case deflate
    /// Raw RGB or RGBA samples.
    case none

    /// JPEG at the default qualities, 94 for the luma and 85 for the colour, chosen on the shared
    /// test photos (astronaut, chelsea, coffee, hubble, retina, rocket), every level of each, and on
    /// the tests' hubble-made images: the luma is what the eye resolves, and at 94 it stays at
    /// 40.9 dB or more from the source tiles, where 93 let a level of a hubble-made image fall to
    /// 39.7 dB (95: 42.5 dB, for 8–10 % more bytes). The colour's table at 85 saves another 7–10 %
    /// for 0.6–1.5 dB of the colour samples' PSNR (31.8 dB or more): 4:2:0 has already averaged them
    /// over 2 × 2 pixels, which alone holds detailed photos to 35–37 dB even at quality 100. Level 0
    /// of a JPEG source takes the source's own tables instead (see ``jpeg(quality:chromaQuality:)``).
    public static let jpeg = PyramidTIFFCompression.jpeg(quality: 94, chromaQuality: 85)

    /// Whether tiles are JPEG (at any quality).
    public var isJPEG: Bool {
        if case .jpeg = self { true } else { false }
    }

    /// The TIFF Compression tag's value.
    var tagValue: Int {
        switch self {
        case .jpeg: TIFFTag.Compression.jpeg
        case .deflate: TIFFTag.Compression.adobeDeflate
        case .none: TIFFTag.Compression.none
        }
    }
}
