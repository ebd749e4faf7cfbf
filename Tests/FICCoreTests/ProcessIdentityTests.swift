import FICCore
import FICTestSupport
import Foundation
import Glibc
import Testing

/// A process named by its id and start time: parsed from `/proc/PID/stat` after the last `)`,
/// checked against Python's reading of the same file, and no longer running once the process
/// is gone.
@Suite struct ProcessIdentityTests {
    @Test func theStartTimeIsField22CountedAfterTheLastParenthesis() {
        // Fields 3… after the name; field 22 (the 20th of them) is 987654. The name holds spaces
        // and parentheses, as a process may name itself.
        let fields = ["S"] + (4...21).map(String.init) + ["987654", "23", "24"]
        let line = "4242 (a) (b c)) " + fields.joined(separator: " ") + "\n"
        #expect(ProcessIdentity.startTime(statLine: Array(line.utf8)) == 987654)
        #expect(ProcessIdentity.startTime(statLine: Array("4242 (name) S 1 2".utf8)) == nil)
        #expect(ProcessIdentity.startTime(statLine: Array("no parenthesis at all".utf8)) == nil)
    }

    @Test func aChildIsNamedAsPythonReadsItAndIsGoneOnceKilled() async throws {
        let folder = try ExternalTools.makeFolder("fic-process-identity")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pid = try ExternalTools.spawn("/bin/sleep", ["600"], standardOutput: "/dev/null", standardError: "/dev/null")
        var reaped = false
        defer {
            if !reaped {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
        let identity = try #require(ProcessIdentity.running(pid: pid))
        let out = folder + "/start-time"
        try ExternalTools.run(
            "/usr/bin/python3",
            ["-c", "import sys; print(open('/proc/%s/stat' % sys.argv[1]).read().rsplit(')', 1)[1].split()[19])", String(pid)], stdout: out)
        let python = try String(contentsOfFile: out, encoding: .utf8)
        #expect(String(identity.startTime) == python.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(identity.isRunning)
        #expect(ProcessIdentity.current != identity)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        #expect(!identity.isRunning)
        #expect(ProcessIdentity.running(pid: pid) != identity)
    }

    @Test func thisProcessIsRunning() throws {
        let me = try #require(ProcessIdentity.current)
        #expect(me.pid == getpid())
        #expect(me.isRunning)
        // The same id with another start time is another process.
        #expect(!ProcessIdentity(pid: me.pid, startTime: me.startTime &+ 1).isRunning)
    }
}
