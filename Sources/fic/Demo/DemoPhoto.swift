import FastImageCache
import Foundation

/// A photo of the demo grid, drawn square: plain in the thumbnail format, with rounded corners
/// in the medium one.
struct DemoPhoto: ImageEntity {
    let entityID: String
    let sourceImageID: String
    let url: URL

    func sourceImageURL(for format: ImageFormat) -> URL? { url }

    func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
        let rect = CGRect(origin: .zero, size: format.size)
        if format.name == DemoFormats.medium {
            canvas.withSavedState {
                canvas.clip(toRoundedRect: rect, cornerRadius: DemoFormats.cornerRadius)
                canvas.draw(source, in: rect, contentMode: .aspectFill)
            }
        } else {
            canvas.draw(source, in: rect, contentMode: .aspectFill)
        }
        try canvas.checkStatus()
    }
}

/// The demo's family of formats: the original demo's 16-bit thumbnail and a 32-bit image
/// with rounded corners.
enum DemoFormats {
    static let family = "photos"
    static let thumb = "thumb"
    static let medium = "medium"
    /// Points per side of a thumbnail (a grid cell).
    static let thumbPoints = 75.0
    /// Points per side of a medium image.
    static let mediumPoints = 150.0
    /// Pixels per point.
    static let scale = 2.0
    /// Corner radius of medium images, in points.
    static let cornerRadius: CGFloat = 12

    /// The two formats, each keeping at least `count` images.
    static func make(count: Int) throws -> [ImageFormat] {
        let keep = max(count, 100)
        return [
            try ImageFormat(name: thumb, family: family, size: CGSize(width: thumbPoints, height: thumbPoints), scale: scale, style: .rgb565, maximumCount: keep),
            try ImageFormat(name: medium, family: family, size: CGSize(width: mediumPoints, height: mediumPoints), scale: scale, style: .bgra32Premultiplied, maximumCount: keep),
        ]
    }
}
