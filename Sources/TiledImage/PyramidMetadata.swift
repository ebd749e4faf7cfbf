import FICCore
import Glibc
import ImageCodec

/// The small file that describes a finished pyramid: written last, atomically, so that a folder
/// whose metadata reads back intact holds a complete pyramid. Everything read back is checked
/// (magic, version, length, checksum, every size against the geometry it implies) before use.
///
/// Layout (little-endian): magic `FICTILES`, version, byte length, width, height, level count,
/// view width and height (0 when none), flags (1 alpha, 2 flushed to disk), source format,
/// EXIF orientation, source byte count (8 bytes), the system boot id (16 bytes), each level's
/// width and height, and the XXH64 of everything before it (the checksum every other file of the
/// package carries; version 1 had a CRC-32, and such a pyramid is built again).
struct PyramidMetadata: Equatable {
    static let fileName = "pyramid.info"
    static let magic = Array("FICTILES".utf8)
    static let version: UInt32 = 2
    static let maximumLength = 4096

    var width: Int
    var height: Int
    var viewWidth: Int
    var viewHeight: Int
    var levelSizes: [(width: Int, height: Int)]
    var hasAlpha: Bool
    var flushed: Bool
    var sourceFormat: ImageFileFormat
    var orientation: ImageOrientation
    var sourceBytes: Int
    var bootID: [UInt8]

    static func == (a: Self, b: Self) -> Bool {
        a.encoded() == b.encoded()
    }

    /// The geometry these facts describe (checked to match the stored level sizes).
    func geometry() throws -> PyramidGeometry {
        let view = viewWidth > 0 && viewHeight > 0 ? (width: viewWidth, height: viewHeight) : nil
        let geometry = try PyramidGeometry(width: width, height: height, viewSize: view)
        guard geometry.levels.count == levelSizes.count,
            zip(geometry.levels, levelSizes).allSatisfy({ $0.width == $1.width && $0.height == $1.height })
        else {
            throw ImageCacheError(.damagedPyramid, "the pyramid's level sizes do not match its image size; build it again")
        }
        return geometry
    }

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out += Self.magic
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { out += $0 } }
        func u64(_ v: Int) { withUnsafeBytes(of: UInt64(truncatingIfNeeded: v).littleEndian) { out += $0 } }
        u32(Int(Self.version))
        u32(Self.encodedLength(levels: levelSizes.count))
        u32(width); u32(height); u32(levelSizes.count); u32(viewWidth); u32(viewHeight)
        u32((hasAlpha ? 1 : 0) | (flushed ? 2 : 0))
        u32(Self.formatCode(sourceFormat)); u32(orientation.rawValue)
        u64(sourceBytes)
        out += bootID.count == 16 ? bootID : [UInt8](repeating: 0, count: 16)
        for level in levelSizes { u32(level.width); u32(level.height) }
        let checksum = out.withUnsafeBytes { XXH64.hash($0) }
        withUnsafeBytes(of: checksum.littleEndian) { out += $0 }
        return out
    }

    static func encodedLength(levels: Int) -> Int { 8 + 4 * 10 + 8 + 16 + levels * 8 + 8 }

    private static func formatCode(_ format: ImageFileFormat) -> Int {
        switch format {
        case .jpeg: return 0
        case .png: return 1
        case .webp: return 2
        case .heif: return 3
        case .avif: return 4
        case .jxl: return 6
        case .gif: return 7
        case .tiff: return 5
        }
    }

    /// Parses and checks the file's bytes; every failure is `.damagedPyramid`.
    static func decode(_ bytes: [UInt8], path: String) throws -> PyramidMetadata {
        func damaged(_ why: String) -> ImageCacheError {
            ImageCacheError(.damagedPyramid, "the pyramid's metadata is \(why); build the pyramid again", path: path)
        }
        guard bytes.count >= encodedLength(levels: 1), bytes.count <= maximumLength else {
            throw damaged("of the wrong length (\(bytes.count) bytes)")
        }
        guard Array(bytes[0..<8]) == magic else { throw damaged("not a tile pyramid's (wrong magic number)") }
        var offset = 8
        func u32() -> Int {
            defer { offset += 4 }
            return Int(
                UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
        }
        func u64() -> Int {
            let low = u32(), high = u32()
            return high > 0x7FFF_FFFF ? Int.max : low | high << 32
        }
        let version = u32()
        guard version == Int(Self.version) else { throw damaged("of version \(version), not \(Self.version)") }
        let length = u32()
        guard length == bytes.count else { throw damaged("cut short or padded (\(bytes.count) bytes, header says \(length))") }
        let stored = bytes[(length - 8)...].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        guard bytes[0..<(length - 8)].withUnsafeBytes({ XXH64.hash($0) }) == stored else { throw damaged("damaged (checksum mismatch)") }
        let width = u32(), height = u32(), levelCount = u32(), viewWidth = u32(), viewHeight = u32(), flags = u32()
        let formatCode = u32(), orientationCode = u32()
        let sourceBytes = u64()
        guard levelCount >= 1, levelCount <= 32, length == encodedLength(levels: levelCount) else {
            throw damaged("inconsistent (level count \(levelCount))")
        }
        let bootID = Array(bytes[offset..<(offset + 16)])
        offset += 16
        var levels: [(width: Int, height: Int)] = []
        for _ in 0..<levelCount { levels.append((u32(), u32())) }
        let format: ImageFileFormat
        switch formatCode {
        case 0: format = .jpeg
        case 1: format = .png
        case 2: format = .webp
        case 3: format = .heif
        case 4: format = .avif
        case 6: format = .jxl
        case 7: format = .gif
        case 5: format = .tiff
        default: throw damaged("inconsistent (unknown source format \(formatCode))")
        }
        guard let orientation = ImageOrientation(rawValue: orientationCode) else {
            throw damaged("inconsistent (orientation \(orientationCode))")
        }
        let metadata = PyramidMetadata(
            width: width, height: height, viewWidth: viewWidth, viewHeight: viewHeight, levelSizes: levels,
            hasAlpha: flags & 1 != 0, flushed: flags & 2 != 0, sourceFormat: format, orientation: orientation,
            sourceBytes: sourceBytes, bootID: bootID
        )
        do {
            _ = try metadata.geometry()  // sizes within limits and consistent
        } catch {
            throw damaged("inconsistent (\(ImageCacheError.adopting(error).message))")
        }
        return metadata
    }

    /// The running system's boot id (16 bytes; zeros when it cannot be read). A pyramid written
    /// but not flushed survives a crash of the process (the page cache keeps it) but maybe not of
    /// the system, which changes this id. Read once, by FICCore.
    static let currentBootID: [UInt8] = BootIdentifier.current?.bytes ?? [UInt8](repeating: 0, count: 16)
}
