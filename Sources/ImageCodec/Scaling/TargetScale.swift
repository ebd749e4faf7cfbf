/// How far a decode may shrink a source while still covering the size the caller needs.
///
/// Sizes are compared in display orientation (the target is what will be shown), the results are
/// in stored orientation (what the decoder produces before the orientation is applied).
enum TargetScale {
    /// `target` in stored orientation, each side at least 1.
    static func storedTarget(_ target: PixelSize, for info: ImageInfo) -> (width: Int, height: Int) {
        let width = max(target.width, 1), height = max(target.height, 1)
        return info.orientation.swapsDimensions ? (height, width) : (width, height)
    }

    /// The largest whole factor `k` (at most `limit`) for which `ceil(width / k) × ceil(height / k)`
    /// still covers `target`; 1 without a target.
    static func wholeFactor(for info: ImageInfo, target: PixelSize?, limit: Int) -> Int {
        guard let target else { return 1 }
        let (tw, th) = storedTarget(target, for: info)
        // ceil(w / k) >= t  ⇔  k <= floor((w - 1) / (t - 1)) for t > 1; any k for t = 1.
        func largest(_ size: Int, _ wanted: Int) -> Int {
            wanted <= 1 ? Int.max : max(1, (size - 1) / (wanted - 1))
        }
        return max(1, min(limit, largest(info.width, tw), largest(info.height, th)))
    }

    /// The smallest size with the source's aspect ratio that covers `target` (never larger than the
    /// source), in stored orientation; the source size without a target.
    static func coveringSize(for info: ImageInfo, target: PixelSize?) -> (width: Int, height: Int) {
        guard let target else { return (info.width, info.height) }
        let (tw, th) = storedTarget(target, for: info)
        guard tw < info.width || th < info.height else { return (info.width, info.height) }
        let scale = max(Double(tw) / Double(info.width), Double(th) / Double(info.height))
        guard scale < 1 else { return (info.width, info.height) }
        let width = min(info.width, max(tw, Int((Double(info.width) * scale).rounded(.up))))
        let height = min(info.height, max(th, Int((Double(info.height) * scale).rounded(.up))))
        return (max(width, 1), max(height, 1))
    }

    /// ``coveringSize(for:target:)``, but no larger than `limit` (what an earlier stage, such as
    /// DCT scaling, produced) in either dimension.
    static func coveringSize(for info: ImageInfo, target: PixelSize?, within limit: (width: Int, height: Int)) -> (width: Int, height: Int)
    {
        let cover = coveringSize(for: info, target: target)
        return (min(cover.width, limit.width), min(cover.height, limit.height))
    }

    /// How many times smaller `size` is than the source, rounded up: 1 only at full size.
    static func denominator(for info: ImageInfo, size: (width: Int, height: Int)) -> Int {
        guard size.width < info.width || size.height < info.height else { return 1 }
        let ratio = max(Double(info.width) / Double(size.width), Double(info.height) / Double(size.height))
        return max(2, Int(ratio.rounded(.up)))
    }
}
