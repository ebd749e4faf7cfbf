import Testing
@testable import ImageTable

/// The side file's header: its bytes, its round trip, and every field set to 0, all ones and
/// random, with and without a matching checksum, rejected with the reason that names it.
@Suite struct SharedStateHeaderTests {
    static let layout = try! SharedStateLayout(pageSize: 4096, slotsPerChunk: 10, maximumCount: 25)
    static let binding = SharedStateHeader.Binding(device: 0x801, inode: 123_456, tableHeaderChecksum: 0xDEAD_BEEF_0BAD_F00D)
    static let nonce: UInt64 = 0x1234_5678_9ABC_DEF0
    static let header = SharedStateHeader(layout: layout, binding: binding, buildNonce: nonce, state: 1)

    /// The checksum seed: the ASCII bytes "FICSHARE" read as a little-endian UInt64.
    static let seed: UInt64 = Array("FICSHARE".utf8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }

    static func u32(_ b: [UInt8], _ o: Int) -> UInt64 { (0..<4).reduce(0) { $0 | UInt64(b[o + $1]) << (8 * UInt64($1)) } }
    static func u64(_ b: [UInt8], _ o: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[o + $1]) << (8 * UInt64($1)) } }

    static func decode(_ bytes: [UInt8], nonce: UInt64? = nonce) -> Result<SharedStateHeader, SharedStateHeader.Mismatch> {
        bytes.withUnsafeBytes { SharedStateHeader.decode($0, layout: layout, binding: binding, nonce: nonce) }
    }

    /// Recomputes the checksum of `bytes`, as a writer of a forged header would.
    static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        let sum = b.withUnsafeBytes { XXH64.hash($0.baseAddress, count: 96, seed: seed) }
        for i in 0..<8 { b[96 + i] = UInt8(truncatingIfNeeded: sum >> (8 * UInt64(i))) }
        return b
    }

    @Test func theHeaderHasTheSpecifiedBytes() {
        let b = Self.header.encode()
        #expect(b.count == 104)
        #expect(Array(b[0..<8]) == Array("FICSHARE".utf8))
        #expect(Self.u32(b, 8) == 1)
        #expect(Self.u32(b, 12) == 4096)
        #expect(Self.u64(b, 16) == 0x801)
        #expect(Self.u64(b, 24) == 123_456)
        #expect(Self.u64(b, 32) == 0xDEAD_BEEF_0BAD_F00D)
        #expect(Self.u64(b, 40) == Self.nonce)
        #expect(Self.u64(b, 48) == 25)
        #expect(Self.u64(b, 56) == 10)
        #expect(Self.u32(b, 64) == 128)
        #expect(Self.u32(b, 68) == 64)
        #expect(Self.u64(b, 72) == 16384)  // worked out in SharedStateLayoutTests
        #expect(Self.u64(b, 80) == 4096)
        #expect(Self.u32(b, 88) == 1)
        #expect(Self.u32(b, 92) == 0)
        #expect(Self.seed == 0x4552_4148_5343_4946)
        #expect(Self.u64(b, 96) == b.withUnsafeBytes { XXH64.hash($0.baseAddress, count: 96, seed: Self.seed) })
    }

    @Test func theHeaderRoundTrips() throws {
        let b = Self.header.encode()
        #expect(try Self.decode(b).get() == Self.header)
        // Without a known build, any build but 0 is accepted, and named.
        var other = b
        other[40] ^= 0x55
        let joined = try Self.decode(Self.sealed(other), nonce: nil).get()
        #expect(joined.buildNonce == Self.nonce ^ 0x55)
        // A longer buffer (the whole page) decodes the same.
        #expect(try Self.decode(b + [UInt8](repeating: 0xA5, count: 4096 - 104)).get() == Self.header)
    }

    /// Each field, and the reason a changed value of it is rejected with once the checksum matches.
    static let fields: [(offset: Int, width: Int, kind: SharedStateHeader.Mismatch.Kind)] = [
        (0, 8, .magic), (8, 4, .version), (12, 4, .pageSize),
        (16, 8, .binding), (24, 8, .binding), (32, 8, .binding), (40, 8, .binding),
        (48, 8, .geometry), (56, 8, .geometry), (64, 4, .geometry), (68, 4, .geometry), (72, 8, .geometry), (80, 8, .geometry),
        (88, 4, .state), (92, 4, .reserved), (96, 8, .checksum)
    ]

    @Test(arguments: HostileFieldTests.Value.allCases, [false, true])
    func everyChangedFieldIsRejectedByName(value: HostileFieldTests.Value, sealed: Bool) {
        let original = Self.header.encode()
        for (n, field) in Self.fields.enumerated() {
            var b = original
            let range = field.offset..<(field.offset + field.width)
            b.replaceSubrange(range, with: HostileFieldTests.bytes(value, width: field.width, seed: UInt64(n + 1)))
            if sealed && field.offset != 96 { b = Self.sealed(b) }
            guard b[range] != original[range] else {
                // The value is the one the header holds (the reserved field set to 0).
                #expect(throws: Never.self, "offset \(field.offset)") { try Self.decode(b).get() }
                continue
            }
            let expected: SharedStateHeader.Mismatch.Kind = field.offset == 0 ? .magic : sealed ? field.kind : .checksum
            switch Self.decode(b) {
            case .success: Issue.record("offset \(field.offset) set to \(value) was accepted")
            case .failure(let why): #expect(why.kind == expected, "offset \(field.offset) set to \(value): \(why)")
            }
        }
    }

    @Test func shortAndRandomBytesAreRejected() {
        let b = Self.header.encode()
        for count in [0, 1, 8, 95, 96, 103] {
            let short = Array(b.prefix(count))
            guard case .failure(let why) = Self.decode(short) else { Issue.record("\(count) bytes accepted"); continue }
            #expect(why.kind == .tooShort)
        }
        var rng = Xorshift(seed: 3)
        for i in 0..<2000 {
            var page = (0..<104).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if i % 2 == 1 { page.replaceSubrange(0..<8, with: Array("FICSHARE".utf8)); page = Self.sealed(page) }
            guard case .failure(let why) = Self.decode(page) else { Issue.record("random header \(i) accepted"); continue }
            #expect(why.kind == (i % 2 == 1 ? .version : .magic), "\(why)")
        }
    }

    @Test func anotherTableOrGeometryIsRejected() throws {
        let b = Self.header.encode()
        func reason(layout: SharedStateLayout = Self.layout, binding: SharedStateHeader.Binding = Self.binding) -> SharedStateHeader
            .Mismatch.Kind?
        {
            let result = b.withUnsafeBytes { SharedStateHeader.decode($0, layout: layout, binding: binding, nonce: nil) }
            if case .failure(let why) = result { return why.kind }
            return nil
        }
        #expect(reason() == nil)
        #expect(reason(layout: try SharedStateLayout(pageSize: 8192, slotsPerChunk: 10, maximumCount: 25)) == .pageSize)
        #expect(reason(layout: try SharedStateLayout(pageSize: 4096, slotsPerChunk: 10, maximumCount: 26)) == .geometry)
        #expect(reason(layout: try SharedStateLayout(pageSize: 4096, slotsPerChunk: 5, maximumCount: 25)) == .geometry)
        var copy = Self.binding
        copy.inode += 1
        #expect(reason(binding: copy) == .binding)
        copy = Self.binding
        copy.device = 0
        #expect(reason(binding: copy) == .binding)
        copy = Self.binding
        copy.tableHeaderChecksum ^= 1
        #expect(reason(binding: copy) == .binding)
    }
}
