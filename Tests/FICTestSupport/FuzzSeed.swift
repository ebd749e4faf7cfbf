import Foundation

/// The seed of a mutation fuzzer: `FIC_FUZZ_SEED` when set (decimal or 0x-hexadecimal), so that a
/// failing run is replayed exactly, else the fuzzer's own fixed seed. Printed with the fuzzer's
/// name, so that every run's log says how to replay it.
public enum FuzzSeed {
    /// The seed for the fuzzer `name`, printed.
    public static func value(for name: String, default fixed: UInt64) -> UInt64 {
        let text = ProcessInfo.processInfo.environment["FIC_FUZZ_SEED"]
        let seed = text.flatMap { $0.hasPrefix("0x") ? UInt64($0.dropFirst(2), radix: 16) : UInt64($0) } ?? fixed
        print("\(name): seed 0x\(String(seed, radix: 16)) (replay with FIC_FUZZ_SEED=0x\(String(seed, radix: 16)))")
        return seed
    }
}
