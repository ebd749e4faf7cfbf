import Glibc
import Testing
@testable import FICCore

@Suite struct MallocTuningTests {
    /// glibc raises its mapping threshold when a mapped block is freed, so the same large block
    /// allocated again comes from the heap (and stays resident once freed). With the threshold
    /// fixed, every such block is mapped again, and returned when freed. Run in a process of its
    /// own: in the test process, earlier tests leave free heap blocks a request could be served from.
    @Test(.enabled(if: mallocIsGlibcs, "the Thread and Address Sanitizers replace malloc"))
    func aFixedThresholdMapsEveryLargeBlock() async {
        await #expect(processExitsWith: .success) {
            guard MallocTuning.fixMappingThreshold(128 << 10) else { exit(2) }
            let size = 24 << 20
            for _ in 0..<3 {
                let before = MallocTuning.mappedBlockBytes
                guard let block = malloc(size) else { exit(3) }
                memset(block, 1, size)
                guard MallocTuning.mappedBlockBytes >= before + size else { exit(4) }  // came from the heap
                free(block)
                guard MallocTuning.mappedBlockBytes <= before else { exit(5) }  // still mapped
            }
        }
    }
}

/// Whether this process's `malloc` is glibc's: not when a sanitizer's runtime replaced it
/// (nil is RTLD_DEFAULT: every loaded object).
private let mallocIsGlibcs =
    dlsym(nil, "__asan_init") == nil
    && dlsym(nil, "__tsan_init") == nil
