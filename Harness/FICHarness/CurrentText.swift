import Glibc

/// The text of the file at `path` as it is now (nil when it cannot be read): for output files a
/// child process is still writing, polled by a test, and for `/proc` files, whose size is given
/// as 0. Read with plain `read` calls until the end,
/// because Foundation's `String(contentsOfFile:)` was seen under LeakSanitizer to leak its buffer
/// when it read such a file.
public func currentText(ofFile path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
