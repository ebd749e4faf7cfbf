import CCrypto

/// SHA-256 digests written as lowercase hexadecimal: the one spelling of the package's content
/// versions, cache entry names and folder namespaces; and the digest itself, from the system's
/// OpenSSL libcrypto (one library every Linux system already has, where a Swift copy of a TLS
/// library would be compiled into each application for this digest alone).
package enum SHA256Hex {
    /// Calls `body` with the 32 bytes of the SHA-256 of `bytes`, valid only during the call.
    package static func withDigest<R>(of bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest in
            var length: UInt32 = 0
            // EVP_Digest fails only when it cannot allocate its context: as Swift's allocations do, that ends the process.
            guard
                EVP_Digest(
                    bytes.baseAddress, bytes.count, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, sha256Algorithm, nil)
                    == 1,
                length == 32
            else {
                preconditionFailure("OpenSSL's libcrypto could not compute a SHA-256 digest")
            }
            return try body(UnsafeRawBufferPointer(digest))
        }
    }

    /// The 32 bytes of the SHA-256 of `bytes`.
    package static func digestBytes(of bytes: UnsafeRawBufferPointer) -> [UInt8] {
        withDigest(of: bytes) { Array($0) }
    }

    /// The first `length` bytes (all 32 by default) of the SHA-256 of `bytes`, as `2 × length`
    /// lowercase hexadecimal digits.
    package static func digest(of bytes: UnsafeRawBufferPointer, length: Int = 32) -> String {
        precondition((1...32).contains(length), "a SHA-256 digest has 32 bytes")
        return withDigest(of: bytes) { lowercaseHex($0.prefix(length)) }
    }

    /// `bytes` as two lowercase hexadecimal digits each: the one hex encoder of the package (also
    /// the boot identifier's).
    package static func lowercaseHex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 2 * bytes.count) { text in
            for (i, byte) in bytes.enumerated() {
                text[2 * i] = digits[Int(byte >> 4)]
                text[2 * i + 1] = digits[Int(byte & 0x0F)]
            }
            return 2 * bytes.count
        }
    }

    /// The SHA-256 of a string's UTF-8 bytes, as ``digest(of:length:)`` writes it.
    package static func digest(of string: String, length: Int = 32) -> String {
        var copy = string
        return copy.withUTF8 { digest(of: UnsafeRawBufferPointer($0), length: length) }
    }
}

/// SHA-256's implementation, fetched from libcrypto's default provider once: a digest made with
/// `EVP_sha256()` instead fetches it again on every call. A fetched algorithm is immutable and
/// OpenSSL lets any number of threads use it at once, hence `nonisolated(unsafe)`.
nonisolated(unsafe) private let sha256Algorithm: OpaquePointer = {
    guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else {
        preconditionFailure(
            "OpenSSL's libcrypto has no SHA-256: its default provider did not load (check OPENSSL_CONF and OPENSSL_MODULES)")
    }
    return algorithm
}()
