import FICCore
import Foundation
import SystemPackage

/// The least a zero-copy lookup that is safe across processes must do, built from the parts any
/// such design has, to measure the cache's lookup against its floor and not only against a
/// dictionary in memory (``ProcessesBenchmark``).
///
/// The images' pixels live in a file mapped shared, as a table's do; a slot is pinned in a second
/// shared mapping (an atomic add on the slot's 64-byte cell, as the tables' shared cells are), so
/// that another process does not reuse it while it is read; the pin is held by an object whose
/// release unpins, as a returned image must be (an application keeps an image as long as it
/// likes). Names are found in a `[String: Int]`, the dictionary baseline's way. What it leaves out,
/// and the cache cannot: checking that the slot still holds the entity (a generation in the cell),
/// the recency stamp, the process's own pin count and the entity's keys.
final class LookupFloor {
    /// The bytes of one slot's pixels in the file: the image, rounded up to whole pages.
    let slotBytes: Int
    private let index: [String: Int]
    private let pixels: MappedRegion
    private let cells: MappedRegion
    private let paths: [String]

    /// Cells of 64 bytes, one cache line each.
    static let cellBytes = 64

    /// Holds a pin on one slot; releasing the object unpins it.
    final class Pinned {
        let cell: UnsafeMutableRawPointer
        let pixels: UnsafeRawPointer

        init(cell: UnsafeMutableRawPointer, pixels: UnsafeRawPointer) {
            self.cell = cell
            self.pixels = pixels
        }

        deinit { _ = cell.fetchAdd(UInt64.max, atByteOffset: 0) }
    }

    /// A floor of `names.count` images of `imageBytes` each, in two files made in `folder` (removed
    /// by ``remove()``); image `i`'s first byte is `i`'s low byte.
    init(names: [String], imageBytes: Int, folder: String) throws {
        slotBytes = (imageBytes + systemPageSize - 1) / systemPageSize * systemPageSize
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() { index[name] = i }
        self.index = index
        let id = UUID().uuidString
        paths = [folder + "/floor-\(id).pixels", folder + "/floor-\(id).cells"]
        func mapped(_ path: String, _ length: Int) throws -> MappedRegion {
            let descriptor = try FileDescriptor.open(
                atPath: path, .readWrite, options: [.create, .exclusiveCreate], permissions: [.ownerReadWrite])
            defer { descriptor.closeQuietly() }
            try descriptor.truncate(to: length, path: path)
            return try MappedRegion(descriptor: descriptor, offset: 0, length: length, writable: true, path: path)
        }
        pixels = try mapped(paths[0], max(1, names.count) * slotBytes)
        cells = try mapped(paths[1], max(1, names.count) * Self.cellBytes)
        for i in names.indices { pixels.base.storeBytes(of: UInt8(truncatingIfNeeded: i), toByteOffset: i * slotBytes, as: UInt8.self) }
    }

    /// The image of `name`, pinned, or nil.
    @inline(__always)
    func image(_ name: String) -> Pinned? {
        guard let slot = index[name] else { return nil }
        let cell = cells.base + slot * Self.cellBytes
        _ = cell.fetchAdd(1, atByteOffset: 0)
        return Pinned(cell: cell, pixels: UnsafeRawPointer(pixels.base + slot * slotBytes))
    }

    /// Removes the two files (the mappings stay until the floor goes).
    func remove() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
