import FICHarness
import Foundation
import Glibc
import Testing

/// Another process that holds an open-file-description write lock (`F_OFD_SETLK`) on one byte of
/// a file until it is killed: Python, taking the lock with its own `fcntl`, so that the tests of
/// the package's locks meet a lock the package did not take. Killed and waited for when it goes
/// away; once waited for, its pid (which may be another process's by then) is never signalled.
public final class LockHoldingProcess {
    /// Its process id.
    public let pid: pid_t
    private var reaped = false

    private init(pid: pid_t) {
        self.pid = pid
    }

    deinit {
        killAndWait()
    }

    /// Starts the process on `byte` of `file` (which exists) and returns once it holds the lock;
    /// what it says goes to files in `folder`.
    public static func start(file: String, byte: Int64, folder: String) async throws -> LockHoldingProcess {
        let said = folder + "/lock-holder-\(UUID().uuidString)"
        let script = """
            import fcntl, os, struct, sys, time
            fd = os.open(sys.argv[1], os.O_RDWR)
            # struct flock on Linux x86-64 and arm64: l_type, l_whence (short), l_start, l_len (off_t), l_pid (int).
            fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhxxxxqqixxxx", fcntl.F_WRLCK, os.SEEK_SET, int(sys.argv[2]), 1, 0))
            print("locked", flush=True)
            # Held until the test kills it; the bound only ends it should the test die first.
            time.sleep(600)
            """
        let holder = LockHoldingProcess(pid: try ExternalTools.spawn("/usr/bin/python3", ["-c", script, file, String(byte)],
                                                                     standardOutput: said + ".out", standardError: said + ".err"))
        try await waitUntil("the other process holds its lock on byte \(byte)") {
            currentText(ofFile: said + ".out") == "locked\n"
        }
        return holder
    }

    /// Sends `signal` (`SIGSTOP`, `SIGCONT`); it must not have been waited for.
    public func signal(_ signal: Int32) {
        precondition(!reaped, "a process that was waited for is never signalled")
        kill(pid, signal)
    }

    /// Kills it with `SIGKILL` and waits for it (once).
    public func killAndWait() {
        guard !reaped else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
    }
}
