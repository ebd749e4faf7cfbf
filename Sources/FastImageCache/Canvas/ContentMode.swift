import Foundation

/// How an image is fitted into a destination rectangle whose aspect ratio may differ from its own.
public enum ContentMode: String, Sendable, Hashable, CaseIterable {
    /// Scales the image, keeping its aspect ratio, until it covers the whole rectangle; the parts
    /// that overflow are cropped equally on both sides (a centred crop).
    case aspectFill
    /// Scales the image, keeping its aspect ratio, until it just fits inside the rectangle; the
    /// rest of the rectangle (the letterbox bars, equal on both sides) is left untouched.
    case aspectFit
    /// Scales the image independently in each direction to fill the rectangle exactly.
    case stretch

    /// The rectangle the whole content would occupy when fitted into `rect` in this mode.
    ///
    /// For ``aspectFill`` the result may extend beyond `rect` (it is cropped when drawn); for
    /// ``aspectFit`` it lies inside `rect`; for ``stretch`` it equals `rect`. Returns `rect` when
    /// either size is empty.
    ///
    /// - Parameters:
    ///   - contentSize: The size of the content, in any unit (only its aspect ratio matters).
    ///   - rect: The destination rectangle.
    public func frame(forContentOfSize contentSize: CGSize, in rect: CGRect) -> CGRect {
        let rect = rect.standardized
        guard self != .stretch, contentSize.width > 0, contentSize.height > 0,
            rect.width > 0, rect.height > 0
        else { return rect }
        let scaleX = rect.width / contentSize.width
        let scaleY = rect.height / contentSize.height
        let factor = self == .aspectFill ? max(scaleX, scaleY) : min(scaleX, scaleY)
        let width = contentSize.width * factor
        let height = contentSize.height * factor
        return CGRect(x: rect.midX - width / 2, y: rect.midY - height / 2, width: width, height: height)
    }
}
