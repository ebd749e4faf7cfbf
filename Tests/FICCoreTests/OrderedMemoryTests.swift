import FICCore
import FICTestSupport
import Foundation
import Testing

/// The atomic operations on mapped memory: values stored little-endian whatever the operation, the
/// read-modify-writes returning what was there before, and none of them losing an update when two
/// threads race on one word (which a plain load-then-store would).
@Suite struct OrderedMemoryTests {
    @Test func operationsReturnThePreviousValueAndStoreLittleEndian() {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 8)
        defer { memory.deallocate() }
        memory.storeRelaxed(0x0102_0304_0506_0708, toByteOffset: 8)
        #expect((8..<16).map { memory.load(fromByteOffset: $0, as: UInt8.self) } == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(UnsafeRawPointer(memory).loadRelaxed(fromByteOffset: 8) == 0x0102_0304_0506_0708)
        #expect(memory.fetchOr(0xF0, atByteOffset: 8) == 0x0102_0304_0506_0708)
        #expect(UnsafeRawPointer(memory).loadAcquire(fromByteOffset: 8) == 0x0102_0304_0506_07F8)
        #expect(memory.fetchAnd(0xFFFF, atByteOffset: 8) == 0x0102_0304_0506_07F8)
        #expect(UnsafeRawPointer(memory).loadSequentiallyConsistent(fromByteOffset: 8) == 0x07F8)
        #expect(memory.fetchAdd(8, atByteOffset: 8) == 0x07F8)
        #expect(memory.exchange(42, atByteOffset: 8) == 0x0800)
        #expect(memory.compareExchange(expected: 41, desired: 7, atByteOffset: 8) == (false, 42))
        #expect(memory.compareExchange(expected: 42, desired: 7, atByteOffset: 8) == (true, 42))
        memory.storeSequentiallyConsistent(1 << 63, toByteOffset: 0)
        #expect(memory.load(fromByteOffset: 7, as: UInt8.self) == 0x80)
        #expect(memory.fetchAdd(1 << 63, atByteOffset: 0) == 1 << 63)
        #expect(UnsafeRawPointer(memory).loadRelaxed(fromByteOffset: 0) == 0, "fetchAdd wraps")
    }

    /// Two threads each set their own bits and add to a counter 200,000 times on shared words:
    /// every update is there at the end.
    @Test func racingReadModifyWritesLoseNoUpdate() async throws {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 8)
        defer { memory.deallocate() }
        memory.storeRelaxed(0, toByteOffset: 0)
        memory.storeRelaxed(0, toByteOffset: 8)
        let address = UInt(bitPattern: memory)
        let rounds = 200_000
        async let first: Void = OwnThread.running {
            let m = UnsafeMutableRawPointer(bitPattern: address)!
            for i in 0..<rounds {
                m.fetchAdd(1, atByteOffset: 0)
                m.fetchOr(1 << UInt64(i % 32), atByteOffset: 8)
                m.fetchAnd(~(1 << UInt64(i % 32)), atByteOffset: 8)
            }
        }
        async let second: Void = OwnThread.running {
            let m = UnsafeMutableRawPointer(bitPattern: address)!
            for i in 0..<rounds {
                m.fetchAdd(1, atByteOffset: 0)
                m.fetchOr(1 << UInt64(32 + i % 32), atByteOffset: 8)
            }
        }
        _ = try await (first, second)
        #expect(UnsafeRawPointer(memory).loadAcquire(fromByteOffset: 0) == UInt64(2 * rounds))
        // The second thread's bits all stay set: the first thread's clearing never took them.
        #expect(UnsafeRawPointer(memory).loadAcquire(fromByteOffset: 8) == UInt64(0xFFFF_FFFF_0000_0000))
    }
}
