import FICTestSupport
import Foundation
import Testing

@testable import FICBenchmarks

@Suite("the processes benchmark's floor lookup")
struct LookupFloorTests {
    @Test("a name's image is its slot's pixels, pinned in the shared cell while held; an unknown name is nil")
    func pinsWhileHeld() throws {
        let folder = try ExternalTools.makeFolder("floor")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let floor = try LookupFloor(names: ["a", "b", "c"], imageBytes: 5000, folder: folder)
        defer { floor.remove() }
        #expect(floor.slotBytes == 8192, "5000 bytes take two whole pages")
        #expect(floor.image("d") == nil)
        var image = floor.image("b")
        let cell = try #require(image?.cell)
        #expect(image?.pixels.load(as: UInt8.self) == 1, "image 1's first byte is 1")
        #expect(UnsafeRawPointer(cell).load(as: UInt64.self) == 1, "pinned while held")
        let second = floor.image("b")
        #expect(UnsafeRawPointer(cell).load(as: UInt64.self) == 2)
        image = nil
        #expect(UnsafeRawPointer(cell).load(as: UInt64.self) == 1, "the release unpinned")
        withExtendedLifetime(second) {}
        #expect(floor.image("c")?.pixels.load(as: UInt8.self) == 2)
    }
}
