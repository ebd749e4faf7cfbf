import Foundation
import ImageCodec
import TiledImage

/// The pyramidal-TIFF figures of ``TilesBenchmark`` for one source JPEG: `fic tile --out X.tif`
/// with its default (JPEG) tiles and with raw ones, against `djpeg` and against
/// `vips tiffsave --tile --pyramid --compression jpeg` at the same quality.
public struct TIFFPyramidFigures: Sendable, Codable {
    /// The source's size in pixels.
    public var width: Int
    /// Its height.
    public var height: Int
    /// The source JPEG's bytes.
    public var sourceBytes: Int
    /// `djpeg` of the source (the decode floor).
    public var djpeg: TilesBenchmarkResult.Run?
    /// `fic tile SOURCE --out X.tif`: JPEG tiles at quality 95.
    public var jpegTIFF: TilesBenchmarkResult.Run
    /// Its file's bytes.
    public var jpegTIFFBytes: Int
    /// `fic tile SOURCE --out X.tif --compression none`.
    public var rawTIFF: TilesBenchmarkResult.Run
    /// `vips tiffsave SOURCE X.tif --tile --pyramid --compression jpeg --Q 95` with 256 × 256 tiles.
    public var vipsJPEGTIFF: TilesBenchmarkResult.Run?
    /// Its file's bytes.
    public var vipsJPEGTIFFBytes: Int?
    /// The luma PSNR of the JPEG TIFF's full resolution against a plain decode of the source, dB
    /// (measured on one source only: nil on the others).
    public var lumaPSNR: Double?
    /// The same over the R, G and B samples.
    public var rgbPSNR: Double?

    /// The JPEG TIFF's bytes / the source's.
    public var diskOverSource: Double { Double(jpegTIFFBytes) / Double(max(1, sourceBytes)) }
    /// The JPEG TIFF's time / djpeg's.
    public var jpegOverDjpeg: Double? { djpeg.map { jpegTIFF.seconds / $0.seconds } }
    /// The raw TIFF's time / djpeg's.
    public var rawOverDjpeg: Double? { djpeg.map { rawTIFF.seconds / $0.seconds } }
    /// vips's time / ours (> 1: ours is faster).
    public var vipsOverJPEG: Double? { vipsJPEGTIFF.map { $0.seconds / jpegTIFF.seconds } }
}

extension TilesBenchmark {
    /// The TIFF figures of `source` (`djpeg` already measured), built into `output` (emptied by
    /// `fresh` before each run); with `measureQuality`, the PSNR of its full resolution.
    static func tiffFigures(
        _ source: String, djpeg: TilesBenchmarkResult.Run?, fic: String, vips: String?, output: String, measureQuality: Bool,
        fresh: () throws -> Void, log: (String) -> Void
    ) throws -> TIFFPyramidFigures {
        let tiff = output + "/pyramid.tif"
        let info = try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: source)))
        log("pyramidal TIFF of \(info.width)×\(info.height) (\(fileSize(source) >> 20) MiB JPEG):")
        let jpeg = try best(2) {
            try fresh(); return try MeasuredRun.run(fic, ["tile", source, "--out", tiff]).figures
        }
        let jpegBytes = fileSize(tiff)
        log("  fic tile --out X.tif (JPEG, default): \(describe(jpeg)), \(jpegBytes >> 10) KiB")
        var luma: Double?, rgb: Double?
        if measureQuality {
            (luma, rgb) = try psnr(of: tiff, against: source)
            log("  full resolution vs a plain decode: luma \(BenchKit.fixed(luma ?? 0, 1)) dB, RGB \(BenchKit.fixed(rgb ?? 0, 1)) dB")
        }
        let raw = try best(2) {
            try fresh(); return try MeasuredRun.run(fic, ["tile", source, "--out", tiff, "--compression", "none"]).figures
        }
        log("  fic tile --out X.tif --compression none: \(describe(raw))")
        var vipsBytes: Int?
        let vipsRun = try vips.map { path -> TilesBenchmarkResult.Run in
            try fresh()
            let run = try MeasuredRun.run(
                path,
                [
                    "tiffsave", source, tiff, "--tile", "--pyramid", "--compression", "jpeg", "--Q", "95", "--tile-width", "256",
                    "--tile-height", "256"
                ]
            ).figures
            vipsBytes = fileSize(tiff)
            return run
        }
        vipsRun.map { log("  vips tiffsave --tile --pyramid --compression jpeg --Q 95: \(describe($0)), \((vipsBytes ?? 0) >> 10) KiB") }
        return TIFFPyramidFigures(
            width: info.width, height: info.height, sourceBytes: fileSize(source), djpeg: djpeg, jpegTIFF: jpeg, jpegTIFFBytes: jpegBytes,
            rawTIFF: raw, vipsJPEGTIFF: vipsRun, vipsJPEGTIFFBytes: vipsBytes, lumaPSNR: luma, rgbPSNR: rgb)
    }

    /// The PSNR (luma, then R, G and B) of the full resolution of the pyramid at `tiff` against
    /// the package's plain decode of `source`.
    static func psnr(of tiff: String, against source: String) throws -> (Double, Double) {
        let pyramid = try TilePyramid.open(at: tiff)
        let image = try ImageDecoder.decode(contentsOf: source, options: DecodingOptions(maximumPixelCount: 1 << 30))
        let level = pyramid.geometry.levels[0]
        let buffer = try TileBuffer()
        var lumaSquared = 0.0, rgbSquared = 0.0
        try image.withUnsafeBytes { decoded in
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    try pyramid.readTile(level: 0, column: column, row: row, into: buffer)
                    let valid = level.validSize(column: column, row: row)
                    buffer.withUnsafeBytes { tile in
                        for y in 0..<valid.height {
                            let ours = y * PyramidGeometry.tileRowStride
                            let theirs = (row * 256 + y) * image.bytesPerRow + column * 256 * 4
                            for x in 0..<valid.width {
                                let a = ours + x * 4, b = theirs + x * 4
                                let blue = Double(tile[a]) - Double(decoded[b])
                                let green = Double(tile[a + 1]) - Double(decoded[b + 1])
                                let red = Double(tile[a + 2]) - Double(decoded[b + 2])
                                rgbSquared += blue * blue + green * green + red * red
                                let l = 0.114 * blue + 0.587 * green + 0.299 * red
                                lumaSquared += l * l
                            }
                        }
                    }
                }
            }
        }
        let pixels = Double(level.width * level.height)
        func decibels(_ squared: Double, _ count: Double) -> Double {
            squared == 0 ? .infinity : 10 * log10(255 * 255 / (squared / count))
        }
        return (decibels(lumaSquared, pixels), decibels(rgbSquared, 3 * pixels))
    }
}
