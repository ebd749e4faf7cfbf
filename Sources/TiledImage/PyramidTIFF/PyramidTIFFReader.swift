import FICCore
import ImageCodec

/// Reads a tiled pyramidal TIFF: classic or BigTIFF, little- or big-endian, its levels being the
/// first IFD and the reduced-resolution IFDs (NewSubfileType 1) of the IFD chain, as this
/// package's writer, `vips tiffsave --pyramid`, GDAL and iipsrv's tools make them. Every field is
/// checked when the reader is made; tiles are then read with one range each, still compressed
/// (``tileBytes(level:column:row:)``), or decoded (``decodeTile(level:column:row:)``).
public final class PyramidTIFFReader: Sendable {
    /// The most IFDs followed along the chain.
    public static let maximumDirectories = 64
    /// The most tiles a level may have.
    public static let maximumTilesPerLevel = 1 << 22
    /// The largest tile side accepted.
    public static let maximumTileSide = 4096
    /// The largest image side accepted.
    public static let maximumSide = 1 << 24

    /// Where the bytes come from.
    public let source: any PyramidTIFFByteSource
    /// Whether the file is BigTIFF.
    public let isBigTIFF: Bool
    /// Whether the file is little-endian (`II`).
    public let isLittleEndian: Bool
    /// The levels, full resolution first.
    public let levels: [PyramidTIFFLevel]

    /// Reads the IFDs of the TIFF from `source`.
    ///
    /// - Throws: `.unsupportedFormat` for what is not a tiled 8-bit TIFF; `.damagedPyramid` for
    ///   inconsistent fields (an IFD loop, absurd counts, tiles past the end, levels that do not
    ///   halve), `.truncated` for IFDs or arrays past the end, each with a message saying which.
    public init(source: any PyramidTIFFByteSource) throws {
        self.source = source
        var parser = try TIFFDirectoryParser(source: source)
        isBigTIFF = parser.bigTIFF
        isLittleEndian = parser.littleEndian
        var levels: [PyramidTIFFLevel] = []
        var visited: Set<Int> = []
        var next = parser.firstDirectory
        while next != 0 {
            guard visited.insert(next).inserted else {
                throw TIFFDirectoryParser.damaged("the IFD chain loops back to the IFD at \(next)")
            }
            guard visited.count <= Self.maximumDirectories else {
                throw TIFFDirectoryParser.damaged("the IFD chain has more than \(Self.maximumDirectories) IFDs")
            }
            let (entries, following) = try parser.directory(at: next)
            let subfileType = try Self.scalar(entries, TIFFTag.newSubfileType, "NewSubfileType", &parser) ?? 0
            let isLevel =
                levels.isEmpty
                || (subfileType & UInt64(TIFFTag.reducedResolution) != 0 && subfileType & UInt64(TIFFTag.transparencyMask) == 0)
            if isLevel {
                guard levels.count < PyramidTIFFLayout.maximumLevels else {
                    throw TIFFDirectoryParser.damaged("the file has more than \(PyramidTIFFLayout.maximumLevels) levels")
                }
                let level = try Self.level(index: levels.count, entries: entries, at: next, parser: &parser)
                if let above = levels.last {
                    guard (above.width / 2...(above.width + 1) / 2).contains(level.width),
                        (above.height / 2...(above.height + 1) / 2).contains(level.height)
                    else {
                        throw TIFFDirectoryParser.damaged(
                            "level \(level.index) is \(level.width)×\(level.height), not half of \(above.width)×\(above.height)")
                    }
                }
                levels.append(level)
            }
            next = following
        }
        guard !levels.isEmpty else { throw TIFFDirectoryParser.damaged("the file has no IFD") }
        self.levels = levels
    }

    /// Reads the TIFF file at `path`.
    public convenience init(path: String) throws {
        do {
            try self.init(source: PyramidTIFFFileSource(path: path))
        } catch let error as ImageCacheError {
            throw error.adding(path: path)
        }
    }

    /// The stored (still compressed) bytes of tile (`column`, `row`) of level `level`.
    ///
    /// - Throws: `.invalidArgument` for a tile outside the level; `.damagedPyramid` for a tile
    ///   the file does not have; the source's errors.
    public func tileBytes(level: Int, column: Int, row: Int) throws -> [UInt8] {
        guard levels.indices.contains(level), let (offset, count) = levels[level].storedRange(column: column, row: row) else {
            throw ImageCacheError(.invalidArgument, "there is no tile \(column),\(row) in level \(level)")
        }
        guard count > 0 else { throw TIFFDirectoryParser.damaged("tile \(column),\(row) of level \(level) is missing") }
        return try source.read(offset: offset, count: count)
    }

    /// The most bytes a stored tile of `level` may have: twice its raw samples and 64 KiB, beyond
    /// what any of the compressions read here can produce.
    static func maximumTileBytes(tileWidth: Int, tileHeight: Int, samples: Int) -> Int {
        2 * tileWidth * tileHeight * samples + (64 << 10)
    }

    /// One level from its IFD's entries, every field checked.
    private static func level(
        index: Int, entries: [TIFFDirectoryParser.Entry], at offset: Int, parser: inout TIFFDirectoryParser
    ) throws -> PyramidTIFFLevel {
        func field(_ tag: Int, _ name: String) throws -> Int? {
            try scalar(entries, tag, name, &parser).map { Int(clamping: $0) }
        }
        func required(_ tag: Int, _ name: String) throws -> Int {
            guard let value = try field(tag, name) else { throw TIFFDirectoryParser.damaged("level \(index) has no \(name)") }
            return value
        }
        let width = try required(TIFFTag.imageWidth, "ImageWidth"), height = try required(TIFFTag.imageLength, "ImageLength")
        guard (1...maximumSide).contains(width), (1...maximumSide).contains(height) else {
            throw TIFFDirectoryParser.damaged("level \(index) is \(width)×\(height): sides must be 1…\(maximumSide)")
        }
        guard let tileWidth = try field(TIFFTag.tileWidth, "TileWidth"), let tileHeight = try field(TIFFTag.tileLength, "TileLength") else {
            throw ImageCacheError(.unsupportedFormat, "level \(index) of the TIFF is in strips, not tiles")
        }
        for side in [tileWidth, tileHeight] where side < 16 || side > maximumTileSide || side % 16 != 0 {
            throw TIFFDirectoryParser.damaged("level \(index) has \(side)-pixel tiles: a multiple of 16 up to \(maximumTileSide) is needed")
        }
        let samples = try field(TIFFTag.samplesPerPixel, "SamplesPerPixel") ?? 1
        guard (1...4).contains(samples) else {
            throw ImageCacheError(.unsupportedFormat, "level \(index) has \(samples) samples per pixel")
        }
        let bits = try entry(entries, TIFFTag.bitsPerSample).map { try parser.integers($0, name: "BitsPerSample", maximumCount: 4) } ?? [1]
        guard bits.allSatisfy({ $0 == 8 }) else { throw ImageCacheError(.unsupportedFormat, "level \(index) is not 8 bits per sample") }
        let planar = try field(TIFFTag.planarConfiguration, "PlanarConfiguration") ?? 1
        guard planar == 1 || samples == 1 else { throw ImageCacheError(.unsupportedFormat, "level \(index) stores its samples in planes") }
        let compression = try field(TIFFTag.compression, "Compression") ?? TIFFTag.Compression.none
        let known = [TIFFTag.Compression.none, TIFFTag.Compression.jpeg, TIFFTag.Compression.adobeDeflate, TIFFTag.Compression.oldDeflate]
        guard known.contains(compression) else {
            throw ImageCacheError(.unsupportedFormat, "level \(index) has compression \(compression); none, JPEG and deflate are read")
        }
        let photometric = try required(TIFFTag.photometricInterpretation, "PhotometricInterpretation")
        let extra = try entry(entries, TIFFTag.extraSamples).map { try parser.integers($0, name: "ExtraSamples", maximumCount: 3) } ?? []
        guard extra.count < samples || extra.isEmpty else {
            throw TIFFDirectoryParser.damaged("level \(index) has \(extra.count) extra samples of \(samples)")
        }
        let predictor = try field(TIFFTag.predictor, "Predictor") ?? 1
        // How the samples become pixels, decided here (as ImageCodec's TIFF decoder decides it) so
        // that a level whose samples are not read is refused when the file is opened.
        var tags = TIFFSamplePlan.Tags(photometric: photometric, samplesPerPixel: samples, bitsPerSample: 8)
        // SampleFormat has a value per sample (as BitsPerSample has); mixed formats are read as none.
        let formats = try entry(entries, TIFFTag.sampleFormat).map { try parser.integers($0, name: "SampleFormat", maximumCount: 4) } ?? [1]
        tags.sampleFormat = Set(formats).count == 1 ? Int(clamping: formats[0]) : 0
        tags.extraSamples = extra.map { Int(clamping: $0) }
        tags.yCbCrDecodedAsRGB = compression == TIFFTag.Compression.jpeg
        let plan = try TIFFSamplePlan(tags)
        guard plan.source == .native else {
            throw ImageCacheError(
                .unsupportedFormat, "level \(index) has samples of photometric \(photometric) that only libtiff's RGBA reader reads")
        }
        let tables = try entry(entries, TIFFTag.jpegTables).map { try parser.valueBytes($0, name: "JPEGTables", maximum: 1 << 20) }

        let columns = (width + tileWidth - 1) / tileWidth, rows = (height + tileHeight - 1) / tileHeight
        let tiles = columns * rows
        guard tiles <= maximumTilesPerLevel else {
            throw TIFFDirectoryParser.damaged("level \(index) has \(tiles) tiles, more than \(maximumTilesPerLevel)")
        }
        func array(_ tag: Int, _ name: String) throws -> [Int] {
            guard let found = entry(entries, tag) else { throw TIFFDirectoryParser.damaged("level \(index) has no \(name)") }
            guard found.count == UInt64(tiles) else {
                throw TIFFDirectoryParser.damaged(
                    "level \(index) has \(found.count) \(name) for \(columns) × \(rows) tiles of \(tileWidth)×\(tileHeight)")
            }
            return try parser.integers(found, name: name, maximumCount: tiles).map { Int(clamping: $0) }
        }
        let offsets = try array(TIFFTag.tileOffsets, "TileOffsets"), counts = try array(TIFFTag.tileByteCounts, "TileByteCounts")
        let largest = maximumTileBytes(tileWidth: tileWidth, tileHeight: tileHeight, samples: samples)
        for i in 0..<tiles where counts[i] != 0 {
            guard counts[i] <= largest else {
                throw TIFFDirectoryParser.damaged("tile \(i) of level \(index) claims \(counts[i]) bytes, more than \(largest)")
            }
            guard offsets[i] <= parser.source.size, counts[i] <= parser.source.size - offsets[i] else {
                throw ImageCacheError(
                    .truncated,
                    "tile \(i) of level \(index) (\(counts[i]) bytes at \(offsets[i])) passes the end of the \(parser.source.size)-byte file"
                )
            }
        }
        return PyramidTIFFLevel(
            index: index, width: width, height: height, tileWidth: tileWidth, tileHeight: tileHeight, compression: compression,
            photometric: photometric, samplesPerPixel: samples, extraSamples: tags.extraSamples, predictor: predictor,
            samplePlan: plan, jpegTables: tables, tileOffsets: offsets, tileByteCounts: counts, directoryOffset: offset)
    }

    /// The entry of `tag`, if any.
    private static func entry(_ entries: [TIFFDirectoryParser.Entry], _ tag: Int) -> TIFFDirectoryParser.Entry? {
        entries.first { $0.tag == tag }
    }

    /// The single value of `tag`, if present.
    private static func scalar(
        _ entries: [TIFFDirectoryParser.Entry], _ tag: Int, _ name: String, _ parser: inout TIFFDirectoryParser
    ) throws -> UInt64? {
        guard let found = entry(entries, tag) else { return nil }
        guard found.count == 1 else { throw TIFFDirectoryParser.damaged("\(name) has \(found.count) values, not 1") }
        return try parser.integers(found, name: name, maximumCount: 1)[0]
    }
}
