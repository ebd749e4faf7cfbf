import FICCore
import ImageTable

/// What holding a slot will add to a lookup once several processes share a table: a reader's
/// hold and release of a slot through ``SlotCells`` (two sequentially consistent read-modify-writes
/// and a load), on cells laid out as the side file lays them out, over the same shuffled order
/// of slots as the lookups it is compared with.
enum SharedHoldBenchmark {
    /// ns per hold + release, cycling through `order` (slots of a table of `slots`).
    static func measure(slots: Int, order: [Int], runs: Int, operationsPerRun: Int) throws -> BenchTiming {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: min(slots, 256), maximumCount: slots)
        let length = layout.fileLength(chunks: (slots + 255) / 256, region: 0, buckets: 2)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 4096)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: length)
        let cells = SlotCells(base: memory, layout: layout)
        for slot in 0..<slots { cells.publish(slot, .committed(version: 1)) }
        var missed = 0
        let timing = BenchKit.measure(runs: runs, operationsPerRun: operationsPerRun) {
            var k = 0
            for _ in 0..<operationsPerRun {
                let slot = order[k]
                if cells.hold(slot, holder: 3, expecting: cells.word(slot)) {
                    cells.release(slot, holder: 3)
                } else {
                    missed += 1
                }
                k += 1
                if k == order.count { k = 0 }
            }
        }
        guard missed == 0 else { throw BenchmarkError("\(missed) holds failed with no writer") }
        return timing
    }
}
