import Foundation
import Glibc

/// TCP connections to 127.0.0.1 for the tests of servers: a request written by hand, or whether
/// a server listens yet. Every read has a time limit (60 s without a byte: a server under test in
/// the test process answers from Swift's cooperative pool, whose two threads on a 2-core machine
/// other tests of the same run may hold for tens of seconds; with 20 s, an answer to a request
/// written by hand came too late once in a run whose machine was twice as slow as usual).
public enum LoopbackSocket {
    /// A connected TCP socket to 127.0.0.1:`port`.
    public static func connect(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends `request` on a new connection and reads the answer until the server closes it (or
    /// sends nothing for 60 s). Blocking: from async code, call it through ``OwnThread/run(_:)``.
    public static func exchange(_ port: Int, _ request: [UInt8]) throws -> String {
        String(decoding: try exchangeBytes(port, request), as: UTF8.self)
    }

    /// ``exchange(_:_:)``'s answer as the bytes received (bodies that are not text stay whole).
    public static func exchangeBytes(_ port: Int, _ request: [UInt8]) throws -> [UInt8] {
        let fd = try connect(port)
        defer { close(fd) }
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return answer
    }

    /// Whether something accepts connections on 127.0.0.1:`port` now.
    public static func accepts(_ port: Int) -> Bool {
        guard let fd = try? connect(port) else { return false }
        close(fd)
        return true
    }
}
