import FICCore
import Foundation
import Glibc
import Testing

@Suite struct MappedRegionTests {
    @Test func aDetachedRangeKeepsItsBytesWhenTheFileChanges() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fic-core-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = try Directory.open(root, create: true)
        let fd = try dir.openFile("m", writable: true, create: true)
        defer { fd.closeQuietly() }
        let page = systemPageSize
        try fd.allocate(offset: 0, length: 4 * page, path: nil)
        let region = try MappedRegion(descriptor: fd, offset: 0, length: 4 * page, writable: true, path: nil)
        region.base.initializeMemory(as: UInt8.self, repeating: 7, count: 4 * page)
        #expect(region.detach(region.base + page, count: 2 * page))
        // Rewrite the whole file through the descriptor: the detached pages do not see it.
        let ones = [UInt8](repeating: 1, count: 4 * page)
        try ones.withUnsafeBytes { try fd.writeAll($0, at: 0, path: nil) }
        #expect(region.base.load(as: UInt8.self) == 1, "a shared page follows the file")
        #expect(region.base.load(fromByteOffset: page, as: UInt8.self) == 7)
        #expect(region.base.load(fromByteOffset: 3 * page - 1, as: UInt8.self) == 7)
        #expect(region.base.load(fromByteOffset: 3 * page, as: UInt8.self) == 1)
    }

    @Test func lockedBoxGuardsItsValue() async {
        let box = LockedBox(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<1000 { box.withLockedValue { $0 += 1 } } } }
        }
        #expect(box.withLockedValue { $0 } == 8000)
    }

    @Test func errorsShowTheFileAndTheSystemsReason() {
        let e = ImageCacheError.system("open", path: "/x/y", errno: .noSuchFileOrDirectory)
        #expect(e.code == .io)
        #expect(e.description.contains("/x/y"))
        #expect(e.description.contains("No such file or directory [errno 2]"))
        #expect(ImageCacheError.system("write", path: nil, errno: .noSpace).code == .noSpace)
        #expect(ImageCacheError.system("open", path: nil, errno: .readOnlyFileSystem).code == .readOnly)
        let wrapped = ImageCacheError(.io, "outer", path: "/x/y", errno: .noSuchFileOrDirectory, underlying: e)
        #expect(wrapped.description.components(separatedBy: "/x/y").count == 2, "the path is shown once: \(wrapped)")
    }
}
