#if Server
import TiledImage

/// How the tile server answers for a IIIF service's image information: the level-2 document
/// (TiledImage's `IIIFInformation`, which the static export writes at level 0), its media type
/// and its profile link.
enum IIIFServiceInfo {
    /// The media type of the document (JSON-LD with the Image API's context as its profile).
    static let mediaType = "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\""
    /// The `Link` header naming the compliance level's profile.
    static let profileLink = "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\""

    /// The level-2 document for the service at `id` of `reader`'s image, as `options` serve it:
    /// within its limits, listing `sizeUpscaling` when it is offered.
    static func document(id: String, reader: PyramidRegionReader, options: TileServerOptions) throws -> [UInt8] {
        let limits = options.limits
        return try IIIFInformation.document(
            id: id, width: reader.pyramid.geometry.width, height: reader.pyramid.geometry.height,
            levelSizes: (0..<reader.levelCount).map(reader.size(ofLevel:)), tileSide: PyramidGeometry.tileSide,
            level2: .init(
                maxWidth: limits.maxWidth, maxHeight: limits.maxHeight, maxArea: limits.maxArea,
                sizeUpscaling: options.sizeUpscaling))
    }
}
#endif
