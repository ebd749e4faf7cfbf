import FICCore
import Foundation
import Glibc

/// A slow network link in front of a local server: a TCP relay on 127.0.0.1 that forwards every
/// connection to `targetPort` and lets at most `bytesPerSecond` in total flow back to the clients,
/// shared by all connections as on a real link (a token bucket, no burst beyond 16 KiB).
///
/// nginx's own `limit_rate` cannot stand in for such a link: it limits each response separately
/// and lets the first second's worth of bytes through at once, so a 200 KB photo behind
/// `limit_rate 585k` arrives in milliseconds however many are in flight.
///
/// Blocking sockets, two threads per connection: for tests and benchmarks only.
public final class ThrottledLink: @unchecked Sendable {
    /// The port clients connect to.
    public let port: Int
    private let listener: Int32
    private let targetPort: Int
    private let bucket: TokenBucket
    private let sockets = LockedBox(Set<Int32>())
    private let stopped = LockedBox(false)

    /// Starts relaying to `127.0.0.1:targetPort` at `bytesPerSecond` in total.
    public init(targetPort: Int, bytesPerSecond: Int) throws {
        self.targetPort = targetPort
        bucket = TokenBucket(rate: Double(bytesPerSecond), capacity: 16 << 10)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw HarnessError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        do {
            try WorkerThread.detach(name: "throttled link") { [self] in acceptLoop() }
        } catch {
            close(fd)
            throw HarnessError("cannot start the link's thread: \(error)")
        }
    }

    /// Stops every byte on its way to the clients until ``resume()``: connections stay open and
    /// requests go through, but no response makes progress (a link that stalls), so a test can
    /// arrange what is queued before anything arrives.
    public func hold() {
        bucket.isHeld = true
    }

    /// Lets bytes flow again after ``hold()``.
    public func resume() {
        bucket.isHeld = false
    }

    /// Stops accepting and cuts every open connection.
    public func stop() {
        stopped.withLockedValue { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in sockets.withLockedValue({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return a
    }

    private func acceptLoop() {
        while !stopped.withLockedValue({ $0 }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            sockets.withLockedValue { $0.formUnion([client, server]) }
            let done = LockedBox(0)
            let finish: @Sendable () -> Void = { [self] in
                let last = done.withLockedValue { d -> Bool in
                    d += 1
                    return d == 2
                }
                shutdown(client, Int32(SHUT_RDWR))
                shutdown(server, Int32(SHUT_RDWR))
                if last {
                    sockets.withLockedValue { $0.subtract([client, server]) }
                    close(client)
                    close(server)
                }
            }
            for (source, target, throttled) in [(client, server, false), (server, client, true)] {
                do {
                    try WorkerThread.detach(name: "link relay") { [self] in
                        relay(from: source, to: target, throttled: throttled); finish()
                    }
                } catch {
                    finish()  // the connection ends when both directions have
                }
            }
        }
    }

    /// Copies until either side ends; the server-to-client direction pays the bucket.
    private func relay(from source: Int32, to target: Int32, throttled: Bool) {
        let size = 16 << 10
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(source, buffer, size)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            if throttled { bucket.take(n) }
            var sent = 0
            while sent < n {
                let m = send(target, buffer + sent, n - sent, Int32(MSG_NOSIGNAL))
                if m < 0 && errno == EINTR { continue }
                if m <= 0 { return }
                sent += m
            }
        }
    }
}

/// Tokens (bytes) that refill at a fixed rate up to a capacity; taking waits for enough.
final class TokenBucket: Sendable {
    private struct State {
        var tokens: Double
        var last: ContinuousClock.Instant
    }

    let rate: Double
    let capacity: Double
    private let state: LockedBox<State>
    private let held = LockedBox(false)

    /// While true, nothing may pass (see ``ThrottledLink/hold()``).
    var isHeld: Bool {
        get { held.withLockedValue { $0 } }
        set { held.withLockedValue { $0 = newValue } }
    }

    init(rate: Double, capacity: Int) {
        self.rate = rate
        self.capacity = Double(capacity)
        state = LockedBox(State(tokens: 0, last: .now))
    }

    /// Waits until `count` bytes may pass.
    func take(_ count: Int) {
        var owed = Double(count)
        while isHeld { usleep(1000) }
        while owed > 0 {
            let wait: Double = state.withLockedValue { s in
                let now = ContinuousClock.now
                let elapsed = now - s.last
                s.last = now
                s.tokens = min(
                    capacity, s.tokens + rate * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
                let granted = min(owed, s.tokens)
                s.tokens -= granted
                owed -= granted
                return owed > 0 ? min(owed, capacity) / rate : 0
            }
            if wait > 0 { usleep(UInt32(max(200, wait * 1e6))) }
        }
    }
}
