#if Server
import FICCore

extension IIIFImageRequest {
    /// The output size that the size parameter `text` asks of a `rw × rh` region, resolved as the
    /// Image API 3.0 says (§ 4.2), every side rounded to the nearest pixel:
    ///
    /// - `max` is the region, shrunk to fit the limits; `^max` the region scaled, up or down, to
    ///   the largest size the limits allow.
    /// - `!w,h` is the largest size of the region's shape inside the box, the region and the
    ///   limits; `^!w,h` inside the box and the limits only.
    /// - `w,`, `,h`, `pct:n` and `w,h` are the size asked; without `^` none may be larger than
    ///   the region (nor `n` above 100).
    ///
    /// Refused with `.invalidArgument` (400): a size larger than the region without `^`, below a
    /// pixel, or above the limits; with `.notImplemented` (501): a `^` size that enlarges the
    /// region when `upscaling` is false.
    static func resolveSize(
        _ text: String, regionWidth rw: Int, regionHeight rh: Int, limits: IIIFLimits,
        upscaling: Bool
    ) throws -> (width: Int, height: Int) {
        let caret = text.hasPrefix("^")
        let (w, h) = try requestedSize(text, caret: caret, rw, rh, limits: limits)
        guard w >= 1, h >= 1 else {
            throw refusal("the size '\(text)' of the \(rw)×\(rh) region would be less than a pixel high or wide")
        }
        if w > rw || h > rh {
            guard caret else {
                throw refusal(
                    "the size '\(text)' is larger than the \(rw)×\(rh) region: IIIF 3 enlarges a region only with a size that starts with '^'"
                )
            }
            guard upscaling else {
                throw ImageCacheError(
                    .notImplemented,
                    "the size '\(text)' enlarges the \(rw)×\(rh) region, and this service does not upscale (its info.json does not list sizeUpscaling)"
                )
            }
        }
        // Sides first: their product could overflow.
        guard w <= limits.maxWidth, h <= limits.maxHeight, w * h <= limits.maxArea else {
            throw refusal(
                "the size \(w)×\(h) is above this service's limits (maxWidth \(limits.maxWidth), maxHeight \(limits.maxHeight), maxArea \(limits.maxArea)); ask for a smaller size, or 'max'"
            )
        }
        return (w, h)
    }

    /// The size `text` names, before it is checked against the region and the limits.
    private static func requestedSize(_ text: String, caret: Bool, _ rw: Int, _ rh: Int, limits: IIIFLimits) throws -> (Int, Int) {
        let body = caret ? text.dropFirst() : Substring(text)
        if body == "max" {
            return fitted(rw, rh, scale: caret ? .infinity : 1, box: nil, limits: limits)
        } else if body == "full" {
            throw refusal("the size 'full' is IIIF 2; version 3 calls it 'max'")
        } else if body.hasPrefix("pct:") {
            let n = try numbers(body.dropFirst(4), count: 1, what: "size", decimals: true)[0]
            guard n > 0 else { throw refusal("the size '\(text)' is empty: the percentage must be above 0") }
            // "The value of n MUST NOT be greater than 100", even when the size rounds to the region's.
            guard caret || n <= 100 else {
                throw refusal(
                    "the size '\(text)' is above 100 percent of the region: IIIF 3 enlarges a region only with a size that starts with '^'")
            }
            return (pixels(n, of: rw), pixels(n, of: rh))
        } else if body.hasPrefix("!") {
            let values = try numbers(body.dropFirst(), count: 2, what: "size", decimals: false)
            guard values[0] > 0, values[1] > 0 else { throw refusal("the size '\(text)' is empty: both sides must be above 0") }
            let scale = min(values[0] / Double(rw), values[1] / Double(rh))
            return fitted(rw, rh, scale: caret ? scale : min(scale, 1), box: (Int(values[0]), Int(values[1])), limits: limits)
        } else if body.hasSuffix(","), !body.dropLast().contains(",") {
            let w = Int(try numbers(body.dropLast(), count: 1, what: "size", decimals: false)[0])
            guard w > 0 else { throw refusal("the size '\(text)' is empty: the width must be above 0") }
            return (w, Int((Double(rh) * Double(w) / Double(rw)).rounded()))
        } else if body.hasPrefix(","), !body.dropFirst().contains(",") {
            let h = Int(try numbers(body.dropFirst(), count: 1, what: "size", decimals: false)[0])
            guard h > 0 else { throw refusal("the size '\(text)' is empty: the height must be above 0") }
            return (Int((Double(rw) * Double(h) / Double(rh)).rounded()), h)
        } else {
            let values = try numbers(body, count: 2, what: "size", decimals: false)
            guard values[0] > 0, values[1] > 0 else { throw refusal("the size '\(text)' is empty: both sides must be above 0") }
            return (Int(values[0]), Int(values[1]))
        }
    }

    /// The region scaled by `scale`, or less where `box` or the limits need it, keeping its shape:
    /// each side rounded to the nearest pixel but never past the box or the limits (rounded down
    /// when rounding up both would pass `maxArea`).
    private static func fitted(_ rw: Int, _ rh: Int, scale: Double, box: (Int, Int)?, limits: IIIFLimits) -> (Int, Int) {
        let (width, height) = (Double(rw), Double(rh))
        let s = min(
            scale, Double(limits.maxWidth) / width, Double(limits.maxHeight) / height,
            (Double(limits.maxArea) / (width * height)).squareRoot())
        var w = min(Int((width * s).rounded()), box?.0 ?? .max, limits.maxWidth)
        var h = min(Int((height * s).rounded()), box?.1 ?? .max, limits.maxHeight)
        if w * h > limits.maxArea { (w, h) = (Int(width * s), Int(height * s)) }
        // Floating point may leave the product a pixel over.
        while w * h > limits.maxArea { (w, h) = (max(1, w - 1), max(1, h - 1)) }
        return (w, h)
    }
}
#endif
