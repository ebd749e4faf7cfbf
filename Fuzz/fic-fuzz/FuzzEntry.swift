import FICFuzzing
import Foundation

// libFuzzer's entry points (built with `swift build --sanitize=fuzzer --sanitize=address`, which
// links libFuzzer's own main; scripts/fuzz does). One binary serves every target: the one named
// by FIC_FUZZ_TARGET. With FIC_FUZZ_SEEDS=DIR it writes the target's own seeds there and exits.

/// The target of this run, chosen once before the first input.
nonisolated(unsafe) var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    guard let name = environment["FIC_FUZZ_TARGET"], let target = FuzzTarget.named(name) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("fic-fuzz: set FIC_FUZZ_TARGET to one of \(names)\n".utf8))
        exit(2)
    }
    if let folder = environment["FIC_FUZZ_SEEDS"] {
        do {
            for (name, bytes) in try target.seeds() {
                try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("fic-fuzz: could not write the seeds of \(name): \(error)\n".utf8))
            exit(1)
        }
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected?.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
