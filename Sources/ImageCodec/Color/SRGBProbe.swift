/// Finds out whether a converter changes anything: many files embed one of the many versions of
/// an sRGB profile (HP's, ICC's v4, the compact ones, camera makers'), and converting with them
/// costs time for nothing. The converter is run on probe colours (every grey, and a 17³ grid of
/// the RGB cube); when no channel of any moves by more than one level, the profile is sRGB.
enum SRGBProbe {
    /// The probe colours as 8-bit R, G, B.
    private static let colors: [(UInt8, UInt8, UInt8)] = {
        var colors = (0...255).map { (UInt8($0), UInt8($0), UInt8($0)) }
        let steps = stride(from: 0, through: 256, by: 16).map { UInt8(min($0, 255)) }
        for r in steps { for g in steps { for b in steps { colors.append((r, g, b)) } } }
        return colors
    }()

    /// Whether `converter` gives back every probe colour within one level.
    static func isIdentity(_ converter: ColorConverter) -> Bool {
        let layout = converter.layout
        let probe = layout.family == .gray ? colors.prefix(256).map { $0 } : colors
        var source = [UInt8](repeating: 0, count: probe.count * layout.bytesPerPixel)
        for (index, (r, g, b)) in probe.enumerated() {
            write(r, g, b, to: &source, at: index * layout.bytesPerPixel, layout)
        }
        var output = [UInt8](repeating: 0, count: probe.count * 4)
        source.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { converter.convert(source.baseAddress!, to: $0.baseAddress!, count: probe.count) }
        }
        for (index, (r, g, b)) in probe.enumerated() {
            let pixel = output[(index * 4)..<(index * 4 + 4)]
            let expected = [b, g, r]
            for (channel, value) in zip(pixel.prefix(3), expected) where abs(Int(channel) - Int(value)) > 1 {
                return false
            }
        }
        return true
    }

    /// One probe colour in `layout` (alpha opaque; 16-bit samples as v × 257).
    private static func write(_ r: UInt8, _ g: UInt8, _ b: UInt8, to bytes: inout [UInt8], at offset: Int, _ layout: ColorConverter.Layout)
    {
        func put16(_ values: [UInt8]) {
            for (i, v) in values.enumerated() {
                withUnsafeBytes(of: UInt16(v) * 257) { word in
                    bytes[offset + 2 * i] = word[0]
                    bytes[offset + 2 * i + 1] = word[1]
                }
            }
        }
        switch layout {
        case .bgrx8, .bgra8: bytes.replaceSubrange(offset..<offset + 4, with: [b, g, r, 255])
        case .rgb8: bytes.replaceSubrange(offset..<offset + 3, with: [r, g, b])
        case .rgba8: bytes.replaceSubrange(offset..<offset + 4, with: [r, g, b, 255])
        case .rgb16: put16([r, g, b])
        case .rgba16: put16([r, g, b, 255])
        case .gray8: bytes[offset] = r
        case .grayAlpha8: bytes.replaceSubrange(offset..<offset + 2, with: [r, 255])
        case .gray16: put16([r])
        case .grayAlpha16: put16([r, 255])
        case .cmyk8, .cmykInverted8: break  // never probed
        }
    }
}
