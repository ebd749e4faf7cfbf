import FICCore
import Testing

/// What the process may use: the machine's memory, or its container's limit when lower.
@Suite struct MachineResourcesTests {
    @Test func aContainerLimitBelowThePhysicalMemoryWins() {
        #expect(MachineResources.memoryBytes(physical: 24 << 30, cgroupLimits: []) == 24 << 30)
        #expect(MachineResources.memoryBytes(physical: 24 << 30, cgroupLimits: [2 << 30]) == 2 << 30)
        #expect(MachineResources.memoryBytes(physical: 1 << 30, cgroupLimits: [8 << 30]) == 1 << 30)
        #expect(MachineResources.memoryBytes(physical: 24 << 30, cgroupLimits: [8 << 30, 4 << 30]) == 4 << 30)
    }

    @Test func cgroupFilesSayNoLimitInTwoWays() {
        #expect(MachineResources.parseCgroupLimit("max\n") == nil, "cgroup v2: no limit")
        #expect(MachineResources.parseCgroupLimit("9223372036854771712\n") == nil, "cgroup v1: no limit, a page below Int.max")
        #expect(MachineResources.parseCgroupLimit("2147483648\n") == 2 << 30)
        #expect(MachineResources.parseCgroupLimit("") == nil)
        #expect(MachineResources.parseCgroupLimit("0\n") == nil)
        #expect(MachineResources.parseCgroupLimit("-1") == nil)
    }

    @Test func thisMachineHasMemoryAndProcessors() {
        #expect(MachineResources.memoryBytes >= 64 << 20)
        #expect(MachineResources.processorCount >= 1)
    }
}
