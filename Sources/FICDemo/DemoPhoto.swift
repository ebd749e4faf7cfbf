#if Tool
import FICCommandLine
import FastImageCache
import Foundation

/// A photo of the demo grid, drawn square: plain in the thumbnail format, with rounded corners
/// in the medium one.
package struct DemoPhoto: ImageEntity {
    package let entityID: String
    package let sourceImageID: String
    package let url: URL

    /// The photo at `url`, named `entityID`, in the version `sourceImageID`.
    package init(entityID: String, sourceImageID: String, url: URL) {
        self.entityID = entityID
        self.sourceImageID = sourceImageID
        self.url = url
    }

    package func sourceImageURL(for format: ImageFormat) -> URL? { url }

    package func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
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
package enum DemoFormats {
    package static let family = "photos"
    package static let thumb = "thumb"
    package static let medium = "medium"
    /// Points per side of a thumbnail (a grid cell).
    package static let thumbPoints = 75.0
    /// Points per side of a medium image.
    package static let mediumPoints = 150.0
    /// Pixels per point.
    package static let scale = 2.0
    /// Corner radius of medium images, in points.
    package static let cornerRadius: CGFloat = 12

    /// The most images a format keeps, for `count` photos: at least 10,000, else `count` rounded
    /// up to a multiple of 10,000. It changes only in large steps, because a change of format
    /// discards every image stored in it: one photo more must not.
    package static func maximumCount(for count: Int) -> Int {
        let step = 10_000
        return max(step, (count + step - 1) / step * step)
    }

    /// The two formats, each keeping at least `count` images (see ``maximumCount(for:)``).
    package static func make(count: Int) throws -> [ImageFormat] {
        let keep = maximumCount(for: count)
        return [
            try ImageFormat(
                name: thumb, family: family, size: CGSize(width: thumbPoints, height: thumbPoints), scale: scale, style: .rgb565,
                maximumCount: keep),
            try ImageFormat(
                name: medium, family: family, size: CGSize(width: mediumPoints, height: mediumPoints), scale: scale,
                style: .bgra32Premultiplied, maximumCount: keep)
        ]
    }

    /// The description of a cache of the two formats for `count` photos.
    package static func description(count: Int, photos: String?) throws -> CacheDescription {
        CacheDescription(family: family, formats: try make(count: count).map(FormatSpec.init), photos: photos)
    }

    /// Whether `description` holds the viewer's formats, whatever their maximum counts.
    package static func isViewerDescription(_ description: CacheDescription) -> Bool {
        guard let ours = try? self.description(count: 0, photos: nil) else { return false }
        func shape(_ d: CacheDescription) -> [FormatSpec] {
            d.formats.map {
                var f = $0; f.maximumCount = 0; return f
            }
        }
        return description.family == ours.family && shape(description) == shape(ours)
    }
}
#endif
