import FICHarness
import Foundation
@testable import ImageTable

/// A fresh temporary directory, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init(_ name: String = "table") {
        let base = FileManager.default.temporaryDirectory.path
        path = (base as NSString).appendingPathComponent("fic-\(name)-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// Fills `count` bytes with a pattern derived from `seed`, so each image's pixels are recognisable.
func fillPattern(_ p: UnsafeMutableRawPointer, count: Int, seed: UInt64) {
    TestPattern.fill(p, count: count, seed: seed &* 0x9E37_79B9_7F4A_7C15)
}

/// Whether `image` holds exactly the pattern of `seed`.
func hasPattern(_ image: StoredImage, seed: UInt64) -> Bool {
    let expected = UnsafeMutableRawPointer.allocate(byteCount: image.byteCount, alignment: 64)
    defer { expected.deallocate() }
    fillPattern(expected, count: image.byteCount, seed: seed)
    return image.withUnsafeBytes { memcmp($0.baseAddress!, expected, image.byteCount) == 0 }
}

func config(_ w: Int = 20, _ h: Int = 10, bpp: Int = 4, max: Int = 8, identity: String = "test", chunkBytes: Int = 4 << 20)
    -> TableConfiguration
{
    TableConfiguration(pixelWidth: w, pixelHeight: h, bytesPerPixel: bpp, maximumCount: max, identity: identity, chunkBytes: chunkBytes)
}

func key(_ s: String) -> TableKey { TableKey(s) }

@discardableResult
func put(_ table: ImageTable, _ entity: String, source: String = "v1", seed: UInt64? = nil) throws -> StoredImage {
    let seed = seed ?? UInt64(truncatingIfNeeded: entity.hashValue)
    return try table.insert(entity: key(entity), source: key(source), label: entity) { p in
        fillPattern(p.baseAddress!, count: table.configuration.pixelByteCount, seed: seed)
    }
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
}

/// Makes the table at `path` look as it does after the system restarted: its header names
/// another boot than the running one (random bytes, as a new boot identifier is).
func simulateRestart(_ path: String) throws {
    var rng = SystemRandomNumberGenerator()
    let other = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
    try patch(path, at: TableHeader.sessionOffset, other)
}

/// A small deterministic generator (xorshift64), so that failures repeat.
struct Xorshift {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
