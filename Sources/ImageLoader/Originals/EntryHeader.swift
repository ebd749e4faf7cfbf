#if Loader
import FICCore
import Foundation

/// The header at the start of every file of the originals cache, followed by the body.
///
/// Layout (little-endian): magic `FICORIG1` (8 bytes); header length (UInt32); body length
/// (UInt64); the body's ``BodyChecksum`` (UInt64); stored-at time in milliseconds since 1970
/// (Int64); maximum age in seconds (Int64, -1 when none); lengths of the URL, the `ETag` and the
/// `Last-Modified` value (3 × UInt16); those three strings (UTF-8); XXH64 of everything before it
/// (UInt64). A file is served only when its header's checksum, its URL, its length and its body's
/// checksum all match: a torn, truncated, misplaced or damaged file is a miss, never a wrong image.
package struct EntryHeader: Sendable, Hashable {
    static let magic: [UInt8] = Array("FICORIG1".utf8)
    /// The fixed part before the three strings.
    static let fixedLength = 8 + 4 + 8 + 8 + 8 + 8 + 6
    /// Bytes of the header's own checksum, at its end.
    static let checksumLength = 8
    /// The longest URL stored; longer ones are served but not cached.
    static let maximumURLBytes = 8192
    /// The longest `ETag` or `Last-Modified` kept; longer ones are dropped.
    static let maximumValidatorBytes = 1024

    package var url: String
    package var bodyLength: Int
    package var bodyChecksum: UInt64
    package var storedAt: Date
    /// Seconds the entry is fresh after `storedAt`; nil: no limit.
    package var maximumAge: Int64?
    package var etag: String?
    package var lastModified: String?

    /// A header as given.
    package init(
        url: String, bodyLength: Int, bodyChecksum: UInt64, storedAt: Date, maximumAge: Int64?, etag: String?, lastModified: String?
    ) {
        self.url = url
        self.bodyLength = bodyLength
        self.bodyChecksum = bodyChecksum
        self.storedAt = storedAt
        self.maximumAge = maximumAge
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Bytes of the header.
    package var length: Int {
        Self.fixedLength + url.utf8.count + (etag?.utf8.count ?? 0) + (lastModified?.utf8.count ?? 0) + Self.checksumLength
    }

    /// Whether the URL and validators fit the format.
    var isStorable: Bool {
        url.utf8.count <= Self.maximumURLBytes
    }

    /// Drops validators too long to store.
    mutating func trimValidators() {
        if let e = etag, e.utf8.count > Self.maximumValidatorBytes { etag = nil }
        if let l = lastModified, l.utf8.count > Self.maximumValidatorBytes { lastModified = nil }
    }

    /// Whether the entry is still fresh at `now`.
    ///
    /// Judged in the header's own precision, whole milliseconds since 1970: the stored time read
    /// back from a file is the millisecond it was stored in, which through `Date`'s floating-point
    /// seconds can come back a few nanoseconds after the time it was made from. Compared in
    /// seconds, a lookup at that very time (a clock a test holds still) saw a negative age and
    /// called a just-stored entry stale.
    func isFresh(at now: Date) -> Bool {
        guard let maximumAge else { return true }
        let age = Self.milliseconds(now) - Self.milliseconds(storedAt)
        return age >= 0 && age < Double(maximumAge) * 1000
    }

    /// Milliseconds since 1970 of `date`, rounded down: what the header stores. (Rounded up, the
    /// time could lie after the store, and an entry read back within that half millisecond would
    /// count as stale.) A `Double`, so that no stored value, however large, can trap.
    static func milliseconds(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000).rounded(.down)
    }

    /// The header's bytes.
    package func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(length)
        out += Self.magic
        append(UInt32(length), to: &out)
        append(UInt64(bodyLength), to: &out)
        append(bodyChecksum, to: &out)
        append(UInt64(bitPattern: Int64(Self.milliseconds(storedAt))), to: &out)
        append(UInt64(bitPattern: maximumAge ?? -1), to: &out)
        let strings = [url, etag ?? "", lastModified ?? ""].map { Array($0.utf8) }
        for s in strings { append(UInt16(s.count), to: &out) }
        for s in strings { out += s }
        let check = out.withUnsafeBytes { XXH64.hash($0) }
        append(check, to: &out)
        return out
    }

    /// Parses a header from the first bytes of a file, checking everything it can without the
    /// body: magic, lengths against `limits`, the checksum, and that it is the entry of `url`.
    ///
    /// - Returns: nil, with the reason, when the bytes are not a valid header of `url`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, fileLength: Int, url: String, maximumBodyBytes: Int) -> Result<
        EntryHeader, DecodeFailure
    > {
        guard bytes.count >= fixedLength, bytes.prefix(8).elementsEqual(magic) else {
            return .failure(.init("not an entry of the originals cache"))
        }
        let headerLength = Int(bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian)
        let bodyLength64 = bytes.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian
        guard headerLength >= fixedLength + checksumLength, headerLength <= bytes.count else {
            return .failure(.init("the header length is invalid"))
        }
        guard bodyLength64 <= UInt64(maximumBodyBytes) else { return .failure(.init("the body is longer than allowed")) }
        let bodyLength = Int(bodyLength64)
        let (total, overflow) = headerLength.addingReportingOverflow(bodyLength)
        guard !overflow, total == fileLength else {
            return .failure(.init("the file is \(fileLength) bytes, not the \(total) its header says (torn or truncated)"))
        }
        let checked = headerLength - checksumLength
        let check = XXH64.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<checked]))
        guard check == bytes.loadUnaligned(fromByteOffset: checked, as: UInt64.self).littleEndian else {
            return .failure(.init("the header checksum does not match"))
        }
        let lengths = (0..<3).map { Int(bytes.loadUnaligned(fromByteOffset: fixedLength - 6 + 2 * $0, as: UInt16.self).littleEndian) }
        guard fixedLength + lengths.reduce(0, +) == checked else { return .failure(.init("the header's string lengths are inconsistent")) }
        var offset = fixedLength
        var strings: [String] = []
        for n in lengths {
            strings.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]), as: UTF8.self))
            offset += n
        }
        guard strings[0] == url else { return .failure(.init("the entry belongs to another URL")) }
        let millis = Int64(bitPattern: bytes.loadUnaligned(fromByteOffset: 28, as: UInt64.self).littleEndian)
        let age = Int64(bitPattern: bytes.loadUnaligned(fromByteOffset: 36, as: UInt64.self).littleEndian)
        return .success(
            EntryHeader(
                url: strings[0], bodyLength: bodyLength,
                bodyChecksum: bytes.loadUnaligned(fromByteOffset: 20, as: UInt64.self).littleEndian,
                storedAt: Date(timeIntervalSince1970: Double(millis) / 1000), maximumAge: age < 0 ? nil : age,
                etag: strings[1].isEmpty ? nil : strings[1], lastModified: strings[2].isEmpty ? nil : strings[2]))
    }

    /// Why a header was refused.
    package struct DecodeFailure: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    private func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }
}
#endif
