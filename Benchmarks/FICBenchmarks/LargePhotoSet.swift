import FICHarness
import Foundation
import ImageCodec

/// Large photographs made at run time from the test photos: each photo mirrored and tiled to the
/// size of a modern camera's (so it keeps a real photo's detail, which an enlargement would smooth
/// away), then encoded as a baseline and a progressive JPEG (`cjpeg -quality 90`, with
/// `-progressive`), a PNG, and a lossy WebP. Kept in a folder and reused by later runs.
enum LargePhotoSet {
    /// The kinds of input, each benchmarked on its own.
    enum Kind: String, CaseIterable, Codable, Sendable {
        case jpegBaseline = "jpeg-baseline"
        case jpegProgressive = "jpeg-progressive"
        case png
        case webp
        case heic
        case avif
        case jxl
        /// JPEG XL as libvips writes it by default (`vips jxlsave`: distance from Q 75), which
        /// decodes faster than `cjxl -d 1`'s, so the fixed costs around the decoder weigh more.
        case jxlVips = "jxl-vips"
        case tiff
        case gif

        /// The kinds `fic-bench ingest` compares (the first formats); `fic-bench formats` takes the others.
        static let ingestKinds: [Kind] = [.jpegBaseline, .jpegProgressive, .png, .webp]
        /// The kinds of `fic-bench formats`.
        static let formatKinds: [Kind] = [.heic, .avif, .jxl, .jxlVips, .tiff, .gif]

        /// The size of the generated photos: a camera's for photographs, a large web animation's for GIF.
        var size: (width: Int, height: Int) {
            switch self {
            case .webp: (4096, 4096)
            case .gif: (2048, 1152)
            default: (5120, 2880)
            }
        }

        var fileExtension: String {
            switch self {
            case .jpegBaseline, .jpegProgressive: "jpg"
            case .png: "png"
            case .webp: "webp"
            case .heic: "heic"
            case .avif: "avif"
            case .jxl, .jxlVips: "jxl"
            case .tiff: "tif"
            case .gif: "gif"
            }
        }

        /// The encoder that makes this kind from a PNG, and its arguments (input, output).
        var encoder: (tool: String, arguments: (String, String) -> [String], package: String)? {
            switch self {
            case .heic: ("heif-enc", { ["-q", "80", "-o", $1, $0] }, "libheif-examples")
            case .avif: ("avifenc", { ["-s", "8", "-j", "all", "--min", "20", "--max", "30", $0, $1] }, "libavif-bin")
            case .jxl: ("cjxl", { [$0, $1, "-d", "1"] }, "libjxl-tools")
            case .jxlVips: ("vips", { ["jxlsave", $0, $1] }, "libvips-tools")
            case .tiff: ("vips", { ["tiffsave", $0, $1, "--compression", "deflate"] }, "libvips-tools")
            case .gif: ("vips", { ["gifsave", $0, $1] }, "libvips-tools")
            default: nil
            }
        }
    }

    /// `distinct` generated photos of `kind` in `folder` (made when missing), by path.
    static func originals(_ kind: Kind, distinct: Int, testdata: String, folder: String, log: (String) -> Void) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sources = BenchKit.photos(in: testdata).filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
        guard !sources.isEmpty else { throw BenchmarkError("no JPEG photos in \(testdata) to make large inputs from") }
        var paths: [String] = []
        for index in 0..<distinct {
            let source = sources[(sources.count - 1 - index % sources.count)]  // the largest photos first
            let name = "\(kind.rawValue)-\(index)-\(kind.size.width)x\(kind.size.height).\(kind.fileExtension)"
            let path = (folder as NSString).appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: path) {
                log("  making \(name) from \((source as NSString).lastPathComponent) …")
                try make(kind, from: source, at: path, workDirectory: folder)
            }
            paths.append(path)
        }
        return paths
    }

    private static func make(_ kind: Kind, from source: String, at path: String, workDirectory: String) throws {
        let (width, height) = kind.size
        let tile = try ImageDecoder.decode(contentsOf: source)
        let canvas = try tiled(tile, width: width, height: height)
        let temporary = path + ".part"
        switch kind {
        case .jpegBaseline, .jpegProgressive:
            guard let cjpeg = Executables.find("cjpeg") else {
                throw BenchmarkError("cjpeg not found in PATH; install libjpeg-turbo-progs (scripts/install-deps) to make the large JPEGs")
            }
            let ppm = path + ".ppm"
            defer { unlink(ppm) }
            try writePPM(canvas, to: ppm)
            try BenchmarkProcess.run(
                cjpeg, ["-quality", "90"] + (kind == .jpegProgressive ? ["-progressive"] : []) + ["-outfile", temporary, ppm])
        case .png:
            try canvas.withUnsafeBytes { pixels in
                try PNGEncoder.write(
                    pixels: pixels.baseAddress!, width: width, height: height, bytesPerRow: canvas.bytesPerRow, format: .bgrx32,
                    to: temporary)
            }
        case .webp:
            let bytes = try canvas.withUnsafeBytes { pixels in
                try WebPEncoder.encode(
                    bgra: pixels.baseAddress!, width: width, height: height, bytesPerRow: canvas.bytesPerRow, quality: 80)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        case .heic, .avif, .jxl, .jxlVips, .tiff, .gif:
            guard let encoder = kind.encoder, let tool = Executables.find(encoder.tool) else {
                throw BenchmarkError(
                    "\(kind.encoder?.tool ?? "an encoder") is needed to make the \(kind.rawValue) inputs (scripts/install-deps --bench installs \(kind.encoder?.package ?? "it"))"
                )
            }
            let png = path + ".png"
            defer { unlink(png) }
            try canvas.withUnsafeBytes { pixels in
                try PNGEncoder.write(
                    pixels: pixels.baseAddress!, width: width, height: height, bytesPerRow: canvas.bytesPerRow, format: .bgrx32, to: png)
            }
            // Tools choose the output format by extension: give the temporary file the real one.
            let staged = path + ".part." + kind.fileExtension
            try BenchmarkProcess.run(tool, encoder.arguments(png, staged))
            guard rename(staged, temporary) == 0 else { throw BenchmarkError("\(encoder.tool) wrote no \(staged)") }
        }
        guard rename(temporary, path) == 0 else { throw BenchmarkError("could not rename \(temporary) to \(path)") }
    }

    /// `tile` mirrored and repeated to `width × height` (so tiles join without seams), BGRX.
    static func tiled(_ tile: DecodedImage, width: Int, height: Int) throws -> DecodedImage {
        let canvas = DecodedImage(
            width: width, height: height, pixelFormat: .bgrx32, source: tile.source, isOrientationApplied: true, zeroFilled: false)
        let out = canvas.baseAddress.assumingMemoryBound(to: UInt32.self)
        let rowPixels = canvas.bytesPerRow / 4
        for y in 0..<height {
            let ty = (y / tile.height) % 2 == 0 ? y % tile.height : tile.height - 1 - y % tile.height
            let source = (tile.baseAddress + ty * tile.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let tx = (x / tile.width) % 2 == 0 ? x % tile.width : tile.width - 1 - x % tile.width
                out[y * rowPixels + x] = source[tx] | 0xFF00_0000
            }
        }
        return canvas
    }

    private static func writePPM(_ image: DecodedImage, to path: String) throws {
        var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
        data.reserveCapacity(data.count + image.width * image.height * 3)
        var row = [UInt8](repeating: 0, count: image.width * 3)
        for y in 0..<image.height {
            let source = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<image.width {
                row[x * 3] = source[x * 4 + 2]
                row[x * 3 + 1] = source[x * 4 + 1]
                row[x * 3 + 2] = source[x * 4]
            }
            data.append(contentsOf: row)
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A folder holding `count` hard links named `photo-NNNNN.EXT`, cycling through `originals`.
    static func linkFolder(_ folder: String, count: Int, originals: [String]) throws -> [String] {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder) { try fm.removeItem(atPath: folder) }
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files: [String] = []
        for index in 0..<count {
            let original = originals[index % originals.count]
            let path = (folder as NSString).appendingPathComponent(
                String(format: "photo-%05d.", index) + (original as NSString).pathExtension)
            if link(original, path) != 0 {
                try fm.createSymbolicLink(atPath: path, withDestinationPath: original)  // another file system
            }
            files.append(path)
        }
        return files
    }
}
