import FastImageCache
import Foundation

/// Caller-owned pixel memory for canvas tests, pre-filled with a sentinel byte.
final class CanvasPixelBuffer {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    let format: PixelFormat
    let pixels: UnsafeMutableRawPointer

    /// `bytesPerRow` defaults to the smallest multiple of 4 that holds a row.
    init(width: Int, height: Int, format: PixelFormat, bytesPerRow: Int? = nil, fill: UInt8 = 0xAB) {
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = bytesPerRow ?? (width * format.bytesPerPixel + 3) & ~3
        pixels = UnsafeMutableRawPointer.allocate(byteCount: self.bytesPerRow * height, alignment: 64)
        pixels.initializeMemory(as: UInt8.self, repeating: fill, count: self.bytesPerRow * height)
    }

    deinit { pixels.deallocate() }

    func makeCanvas(scale: CGFloat = 1) throws -> ImageCanvas {
        try ImageCanvas(
            pixels: pixels, pixelWidth: width, pixelHeight: height, bytesPerRow: bytesPerRow,
            pixelFormat: format, scale: scale)
    }

    /// The bytes of the pixel at (`x`, `y`), in memory order.
    func bytes(_ x: Int, _ y: Int) -> [UInt8] {
        let start = pixels.assumingMemoryBound(to: UInt8.self) + y * bytesPerRow + x * format.bytesPerPixel
        return Array(UnsafeBufferPointer(start: start, count: format.bytesPerPixel))
    }

    /// The alpha byte of a BGRA pixel.
    func alpha(_ x: Int, _ y: Int) -> UInt8 { bytes(x, y)[3] }

    /// The pixel at (`x`, `y`) of a 565 bitmap, as a little-endian `UInt16`.
    func rgb565(_ x: Int, _ y: Int) -> UInt16 {
        let b = bytes(x, y)
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }

    /// Every byte past the pixels of each row.
    var paddingBytes: [UInt8] {
        let rowBytes = width * format.bytesPerPixel
        var result: [UInt8] = []
        let base = pixels.assumingMemoryBound(to: UInt8.self)
        for row in 0..<height {
            for offset in rowBytes..<bytesPerRow { result.append(base[row * bytesPerRow + offset]) }
        }
        return result
    }

    /// Whether every pixel satisfies `predicate`.
    func allPixels(_ predicate: ([UInt8]) -> Bool) -> Bool {
        for y in 0..<height {
            for x in 0..<width where !predicate(bytes(x, y)) { return false }
        }
        return true
    }
}

/// A decoded image whose pixel (x, y) gets the BGRA bytes `color(x, y)` returns.
func makeCanvasTestImage(
    width: Int, height: Int, format: PixelFormat = .bgrx32, orientation: ImageOrientation = .up,
    orientationApplied: Bool = true, color: (Int, Int) -> [UInt8]
) -> DecodedImage {
    let info = ImageInfo(
        format: .png, width: width, height: height, orientation: orientation,
        hasAlpha: format.hasAlpha)
    let image = DecodedImage(
        width: width, height: height, pixelFormat: format, source: info,
        isOrientationApplied: orientationApplied)
    let base = image.baseAddress.assumingMemoryBound(to: UInt8.self)
    for y in 0..<height {
        for x in 0..<width {
            let pixel = color(x, y)
            for (index, byte) in pixel.prefix(format.bytesPerPixel).enumerated() {
                base[y * image.bytesPerRow + x * format.bytesPerPixel + index] = byte
            }
        }
    }
    return image
}

/// BGRA bytes of some opaque colors.
enum CanvasBGRA {
    static let red: [UInt8] = [0, 0, 255, 255]
    static let blue: [UInt8] = [255, 0, 0, 255]
    static let black: [UInt8] = [0, 0, 0, 255]
    static let white: [UInt8] = [255, 255, 255, 255]
    static let transparent: [UInt8] = [0, 0, 0, 0]
}

/// Whether each byte of `actual` is within `tolerance` of `expected`.
func canvasBytesClose(_ actual: [UInt8], _ expected: [UInt8], tolerance: Int = 2) -> Bool {
    actual.count == expected.count && zip(actual, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
}

extension CanvasColor {
    static let opaqueRed = CanvasColor(red: 1, green: 0, blue: 0)
    static let opaqueGreen = CanvasColor(red: 0, green: 1, blue: 0)
    static let opaqueBlue = CanvasColor(red: 0, green: 0, blue: 1)
}
