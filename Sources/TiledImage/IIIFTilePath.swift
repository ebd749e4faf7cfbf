/// The canonical IIIF Image API path of a tile: the one rule the static export writes its files
/// by and the remote descriptor asks for tiles by.
enum IIIFTilePath {
    /// The path components (`X,Y,W,H`, the size, `0`, `default.jpg`) of tile (`column`, `row`) at
    /// scale factor `scale` of a `width × height` image cut into `tileWidth × tileHeight` tiles:
    /// the region in full-resolution pixels, clipped by the image, and its size at that scale,
    /// rounded up — `W',H'` in version 3, `W',` in version 2.
    static func components(width: Int, height: Int, tileWidth: Int, tileHeight: Int, scale: Int, column: Int, row: Int, version: Int)
        -> [String]
    {
        let x = column * tileWidth * scale, y = row * tileHeight * scale
        let regionWidth = min(tileWidth * scale, width - x), regionHeight = min(tileHeight * scale, height - y)
        let sizeWidth = (regionWidth + scale - 1) / scale, sizeHeight = (regionHeight + scale - 1) / scale
        return [
            "\(x),\(y),\(regionWidth),\(regionHeight)", version >= 3 ? "\(sizeWidth),\(sizeHeight)" : "\(sizeWidth),", "0", "default.jpg"
        ]
    }
}
