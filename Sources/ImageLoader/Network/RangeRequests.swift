#if Loader
import AsyncHTTPClient
import FICCore
import Foundation
import NIOCore
import NIOHTTP1

extension NetworkClient {
    /// The `count` bytes of `url` at `offset` (`count` > 0; fewer when the file ends first), by
    /// one `Range` request, and the resource's total size as `Content-Range` gives it. Anything but
    /// a `206` whose `Content-Range` is exactly the range asked for (or its part up to the file's
    /// end), and whose body is exactly that many bytes, is refused before more than `count` bytes
    /// are read: a server that ignores `Range` (a `200` with the whole file) is never read on.
    func range(_ url: URL, offset: Int, count: Int, deadline: ContinuousClock.Instant) async throws -> (bytes: [UInt8], total: Int) {
        let (response, permit) = try await get(url, headers: [("Range", "bytes=\(offset)-\(offset + count - 1)")], deadline: deadline)
        defer { permit.release() }
        if response.status == .ok {
            throw ImageCacheError(
                .network, "the server ignores Range requests (it answered 200 with the whole file); the file is read only by ranges",
                path: url.absoluteString)
        }
        guard response.status == .partialContent else { throw LoaderErrors.status(response.status, url: url) }
        guard let contentRange = response.headers.first(name: "content-range"),
            let (first, last, total) = Self.contentRange(contentRange), first == offset,
            last == offset + count - 1 || (last == total - 1 && last < offset + count - 1)
        else {
            throw ImageCacheError(
                .network,
                "the server answered bytes \(response.headers.first(name: "content-range") ?? "(no Content-Range)") to a request for bytes \(offset)-\(offset + count - 1)",
                path: url.absoluteString)
        }
        let expected = last - first + 1
        if let length = response.headers.first(name: "content-length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            length != expected
        {
            throw ImageCacheError(
                .network, "the server announced \(length) bytes for a range of \(expected)", path: url.absoluteString)
        }
        var body = try await response.body.collect(upTo: expected)
        guard body.readableBytes == expected, let bytes = body.readBytes(length: expected) else {
            throw ImageCacheError(
                .truncated, "the server sent \(body.readableBytes) bytes of a range of \(expected)", path: url.absoluteString)
        }
        return (bytes, total)
    }

    /// `bytes FIRST-LAST/TOTAL` with FIRST ≤ LAST < TOTAL, each at most 2^53; nil for anything else
    /// (an unknown total, `*`, included: a file read by ranges needs its size).
    static func contentRange(_ value: String) -> (first: Int, last: Int, total: Int)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("bytes ") else { return nil }
        let parts = trimmed.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let range = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        func number(_ s: Substring) -> Int? {
            guard !s.isEmpty, s.count <= 16, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(s)
        }
        guard range.count == 2, let first = number(range[0]), let last = number(range[1]), let total = number(parts[1]),
            first <= last, last < total
        else { return nil }
        return (first, last, total)
    }
}

extension OriginalsLoader {
    /// The `count` bytes of the http(s) `url` at `offset` (fewer when the file ends first), by one
    /// HTTP range request, and the file's total size: how a remote pyramidal TIFF is read, header and tiles, never whole.
    /// Failures are remembered per URL as downloads' are (the same back-off refuses repeats).
    ///
    /// - Throws: `ImageCacheError`: `.invalidArgument` for an empty or negative range or a URL
    ///   that is not http(s); `.network` for a server that ignores `Range` (refused before its
    ///   body is read on) or whose `Content-Range` or length is not the range asked for;
    ///   `.truncated` for a body that ends early; `.httpStatus` for other statuses.
    public func bytes(of url: URL, offset: Int, count: Int) async throws -> (bytes: [UInt8], totalSize: Int) {
        guard offset >= 0, count > 0, offset <= Int.max - count else {
            throw ImageCacheError(.invalidArgument, "a range of \(count) bytes at \(offset) is not one", path: url.absoluteString)
        }
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw ImageCacheError(.invalidArgument, "ranges are read over http or https only", path: url.absoluteString)
        }
        if let refusal = failures.refusal(for: url) {
            countRefusal()
            throw refusal
        }
        do {
            let answer = try await network.range(
                url, offset: offset, count: count, deadline: ContinuousClock.now + configuration.totalTimeout)
            countRange(bytes: answer.bytes.count)
            return (answer.bytes, answer.total)
        } catch {
            let mapped = LoaderErrors.map(error, url: url)
            if mapped.code != .cancelled { failures.record(mapped, for: url) }
            throw mapped
        }
    }
}
#endif
