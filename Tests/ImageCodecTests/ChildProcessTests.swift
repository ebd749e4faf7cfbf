import FICHarness
import FICTestSupport
import Foundation
import Testing

/// The child processes the conformance tests decode damaged files in: a crash and a hang are
/// told apart from an ordinary exit, and a hang is killed at its time limit (however busy the
/// other tests keep Swift's cooperative pool: the wait blocks its own thread).
@Suite struct ChildProcessTests {
    @Test func anExitStatusAndWhatTheChildSaid() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "echo refused >&2; exit 3"], timeout: .seconds(60))
        #expect(run.ending == .exited(3))
        #expect(run.standardError == "refused\n")
    }

    @Test func aCrashIsTheSignalThatEndedIt() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "kill -SEGV $$"], timeout: .seconds(60))
        #expect(run.ending == .signalled(SIGSEGV))
    }

    @Test func aHangIsKilledAtTheTimeLimit() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("hang-\(UUID().uuidString)").path
        defer { unlink(marker) }
        // The child would create the marker after 30 s; killed at 0.2 s, it never does. Waited
        // for on a thread of its own, as the conformance tests do.
        let run = await OwnThread.run {
            Result { try ChildProcess.run("/bin/sh", ["-c", "sleep 30; touch \(marker)"], timeout: .milliseconds(200)) }
        }
        let ending = try run.get().ending
        #expect(ending == .timedOut(.milliseconds(200)))
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func theEnvironmentIsPassedOn() throws {
        let run = try ChildProcess.run(
            "/bin/sh", ["-c", "echo \"$CHILD_PROCESS_TEST\" >&2"],
            extraEnvironment: ["CHILD_PROCESS_TEST": "given"], timeout: .seconds(60))
        #expect(run.ending == .exited(0) && run.standardError == "given\n")
    }
}
