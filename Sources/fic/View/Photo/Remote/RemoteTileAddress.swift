#if Tool
import Foundation

/// Tells a remote tiled image's URL from an image file's, for `fic view photo URL`.
enum RemoteTileAddress {
    /// What a URL names.
    enum Kind: Equatable {
        /// A descriptor: a Deep Zoom `.dzi` or a IIIF `info.json`.
        case descriptor(URL)
        /// A `.tif` or `.tiff` file: a tiled pyramidal TIFF, read by ranges (never downloaded whole).
        case pyramidalTIFF(URL)
        /// Maybe a IIIF service's base URL (no file extension): its `info.json` is tried first,
        /// the URL itself as an image file if that fails.
        case possibleService(info: URL)
        /// An image file to download (and tile), as before remote tiled images.
        case imageFile
    }

    /// Extensions of image files: a URL ending in one is downloaded, never asked for an `info.json`.
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "heic", "heif", "avif", "gif", "jxl", "bmp"]

    /// What the http(s) URL `text` names, by its path alone (nothing is fetched).
    static func classify(_ text: String) -> Kind {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { return .imageFile }
        let last = url.lastPathComponent.lowercased()
        if last.hasSuffix(".dzi") || last == "info.json" { return .descriptor(url) }
        let pathExtension = (last as NSString).pathExtension
        if pathExtension == "tif" || pathExtension == "tiff" { return .pyramidalTIFF(url) }
        if imageExtensions.contains(pathExtension) || url.query != nil || url.path.isEmpty || url.path == "/" { return .imageFile }
        // A IIIF base URL may be given with a trailing slash; `id/info.json` either way.
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        guard let info = URL(string: base + "/info.json") else { return .imageFile }
        return .possibleService(info: info)
    }
}
#endif
