import FICTestSupport
import Foundation
import Testing

/// The child processes the conformance tests decode damaged files in: a crash and a hang are
/// told apart from an ordinary exit, and a hang is killed at its time limit.
@Suite struct ChildProcessTests {
    @Test func anExitStatusAndWhatTheChildSaid() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "echo refused >&2; exit 3"], timeout: .seconds(60))
        #expect(run.ending == .exited(3))
        #expect(run.standardError == "refused\n")
    }

    @Test func aCrashIsTheSignalThatEndedIt() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "kill -SEGV $$"], timeout: .seconds(60))
        #expect(run.ending == .signalled(SIGSEGV))
    }

    @Test func aHangIsKilledAtTheTimeLimit() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("hang-\(UUID().uuidString)").path
        defer { unlink(marker) }
        // The child would create the marker after 30 s; killed at 0.2 s, it never does.
        let run = try await ChildProcess.run("/bin/sh", ["-c", "sleep 30; touch \(marker)"], timeout: .milliseconds(200))
        #expect(run.ending == .timedOut(.milliseconds(200)))
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func theEnvironmentIsPassedOn() async throws {
        let run = try await ChildProcess.run("/bin/sh", ["-c", "echo \"$CHILD_PROCESS_TEST\" >&2"],
                                             extraEnvironment: ["CHILD_PROCESS_TEST": "given"], timeout: .seconds(60))
        #expect(run.ending == .exited(0) && run.standardError == "given\n")
    }
}
