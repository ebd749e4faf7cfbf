import Foundation

/// What the kernel says of another process's file locks, for tests and benchmarks that kill a
/// process at a chosen moment.
public enum ProcessLocks {
    /// Whether process `pid` holds an open-file-description write lock on exactly byte `byte`
    /// of the file with inode `inode`, from the lock lines of its `/proc/PID/fdinfo` files
    /// (`lock: 1: OFDLCK ADVISORY WRITE -1 MAJ:MIN:INODE START END`). `F_OFD_GETLK` cannot say
    /// whose lock it finds; this can. The process should be stopped, so that the answer stays true.
    public static func holdsWriteLock(pid: pid_t, inode: UInt64, byte: Int64) -> Bool {
        let folder = "/proc/\(pid)/fdinfo"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let text = currentText(ofFile: (folder as NSString).appendingPathComponent(name)) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("lock:") {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 6, fields.contains("OFDLCK"), fields.contains("WRITE") else { continue }
                let n = fields.count
                if fields[n - 2] == "\(byte)", fields[n - 1] == "\(byte)", fields[n - 3].split(separator: ":").last == "\(inode)" {
                    return true
                }
            }
        }
        return false
    }
}
