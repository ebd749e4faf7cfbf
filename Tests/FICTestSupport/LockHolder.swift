import FICHarness
import Foundation
import Glibc
import Testing

/// Another process that holds an open-file-description write lock (`F_OFD_SETLK`) on one byte of
/// a file until it is killed: Python, taking the lock with its own `fcntl`, so that the tests of
/// the package's locks meet a lock the package did not take. Killed and waited for when it goes
/// away (FICHarness's ``ChildProcess`` does that); once waited for, it is never signalled.
public final class LockHolder {
    /// The child.
    private let child: ChildProcess

    /// Its process id.
    public var pid: pid_t { child.pid }

    private init(child: ChildProcess) {
        self.child = child
    }

    /// Starts the process on `byte` of `file` (which exists) and returns once it holds the lock;
    /// what it says goes to files in `folder`.
    public static func start(file: String, byte: Int64, folder: String) async throws -> LockHolder {
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
        let holder = LockHolder(
            child: try ChildProcess.start(
                "/usr/bin/python3", ["-c", script, file, String(byte)],
                standardOutput: said + ".out", standardError: said + ".err"))
        try await waitUntil("the other process holds its lock on byte \(byte)") {
            currentText(ofFile: said + ".out") == "locked\n"
        }
        return holder
    }

    /// Sends `signal` (`SIGSTOP`, `SIGCONT`); nothing once it has been waited for.
    public func signal(_ signal: Int32) {
        child.signal(signal)
    }

    /// Kills it with `SIGKILL` and waits for it (once).
    public func killAndWait() {
        child.kill()
    }
}
