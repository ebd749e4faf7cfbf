import FICCore

/// The byte ranges of a remote pyramidal TIFF fetched so far, as the reader's source: a read
/// inside them is answered, any other throws ``Missing``, which says what to fetch
/// (``PyramidTIFFReader/read(_:fetch:)`` fetches it and reads again).
public struct PyramidTIFFRanges: PyramidTIFFByteSource {
    /// A read outside the ranges fetched.
    public struct Missing: Error {
        /// Where the read started.
        public let offset: Int
        /// Its length.
        public let count: Int
    }

    /// The most bytes fetched to find a file's IFDs: a file whose IFDs need more is refused.
    public static let maximumBytes = 16 << 20
    /// The window fetched for a read outside the ranges (the file's first one too): 64 KiB.
    public static let windowBytes = 64 << 10

    /// The file's size.
    public let size: Int
    /// Fetched ranges by offset, none overlapping another.
    private var chunks: [(offset: Int, bytes: [UInt8])] = []
    /// Bytes fetched in all.
    public private(set) var fetched = 0

    /// No range yet, of a file of `size` bytes.
    public init(size: Int) {
        self.size = size
    }

    /// Adds the bytes fetched at `offset`, merged with the ranges they overlap or touch (so that
    /// a read across two fetches is answered).
    public mutating func add(offset: Int, bytes: [UInt8]) {
        fetched += bytes.count
        var merged = (offset: offset, bytes: bytes)
        var kept: [(offset: Int, bytes: [UInt8])] = []
        for chunk in chunks {
            let end = chunk.offset + chunk.bytes.count, mergedEnd = merged.offset + merged.bytes.count
            guard chunk.offset <= mergedEnd, merged.offset <= end else {
                kept.append(chunk)
                continue
            }
            let start = min(chunk.offset, merged.offset)
            var joined = [UInt8](repeating: 0, count: max(end, mergedEnd) - start)
            joined.replaceSubrange((chunk.offset - start)..<(end - start), with: chunk.bytes)
            joined.replaceSubrange((merged.offset - start)..<(mergedEnd - start), with: merged.bytes)
            merged = (start, joined)
        }
        kept.append(merged)
        chunks = kept
    }

    /// The range's bytes; ``Missing`` when they were not fetched, `.truncated` past the end.
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw ImageCacheError(.truncated, "bytes \(offset)+\(count) lie past the end of the \(size)-byte TIFF")
        }
        for chunk in chunks where chunk.offset <= offset && offset + count <= chunk.offset + chunk.bytes.count {
            let start = offset - chunk.offset
            return Array(chunk.bytes[start..<(start + count)])
        }
        throw Missing(offset: offset, count: count)
    }
}

extension PyramidTIFFReader {
    /// Reads the IFDs of a remote file from `first`, the ranges fetched so far (its first window
    /// at least), each range it needs beyond them fetched with `fetch(offset, count)` (whole
    /// 64 KiB windows where the file has them) and added, at most
    /// ``PyramidTIFFRanges/maximumBytes`` in all: a file laid out to be read by ranges (IFDs first,
    /// as `fic tile` writes them) costs one range, one whose IFDs follow each level's tiles (as
    /// libtiff and vips write them) one more a level. The reader keeps the ranges as its source:
    /// tiles are read elsewhere (``decodeTile(stored:level:)``).
    ///
    /// - Throws: what ``init(source:)`` throws; `.damagedPyramid` past the bound; `.truncated` for
    ///   a range that came back short; `fetch`'s errors.
    public static func read(_ first: PyramidTIFFRanges, fetch: (Int, Int) async throws -> [UInt8]) async throws -> PyramidTIFFReader {
        var ranges = first
        while true {
            do {
                return try PyramidTIFFReader(source: ranges)
            } catch let missing as PyramidTIFFRanges.Missing {
                let count = min(ranges.size - missing.offset, max(missing.count, PyramidTIFFRanges.windowBytes))
                guard ranges.fetched + count <= PyramidTIFFRanges.maximumBytes else {
                    throw ImageCacheError(
                        .damagedPyramid, "the TIFF's IFDs need more than \(PyramidTIFFRanges.maximumBytes >> 20) MiB of its bytes")
                }
                let bytes = try await fetch(missing.offset, count)
                guard bytes.count == count else {
                    throw ImageCacheError(.truncated, "a range of \(count) bytes came back with \(bytes.count)")
                }
                ranges.add(offset: missing.offset, bytes: bytes)
            }
        }
    }
}
