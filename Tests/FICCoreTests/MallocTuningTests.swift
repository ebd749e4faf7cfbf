import Glibc
import Testing
@testable import FICCore

@Suite struct MallocTuningTests {
    /// glibc raises its mapping threshold when a mapped block is freed, so the same large block
    /// allocated again comes from the heap (and stays resident once freed). With the threshold
    /// fixed, every such block is mapped again, and returned when freed.
    @Test func aFixedThresholdMapsEveryLargeBlock() throws {
        #expect(MallocTuning.fixMappingThreshold(128 << 10))
        let size = 24 << 20
        for round in 0..<3 {
            let before = MallocTuning.mappedBlockBytes
            let block = try #require(malloc(size))
            memset(block, 1, size)
            #expect(MallocTuning.mappedBlockBytes >= before + size, "round \(round): the block came from the heap")
            free(block)
            #expect(MallocTuning.mappedBlockBytes <= before, "round \(round): the freed block is still mapped")
        }
    }
}
