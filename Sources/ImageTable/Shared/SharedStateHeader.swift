/// The first page of a side file: what it is, the table geometry it is laid out for, and the
/// table file it belongs to. It never changes after a build, and a checksum covers it, so a
/// process that validates it once may trust the layout for as long as it has the file mapped.
///
/// Layout (little-endian):
/// ```
/// 0   magic "FICSHARE"                     8 bytes
/// 8   version                              UInt32 (1)
/// 12  page size                            UInt32
/// 16  table device, inode                  UInt64 × 2
/// 32  table header checksum                UInt64   byte 80 of the table's header
/// 40  build nonce                          UInt64   new for every build; never 0
/// 48  maximum count, slots per chunk       UInt64 × 2
/// 64  holder capacity, cell length         UInt32 × 2 (128, 64)
/// 72  cells offset, index region length    UInt64 × 2
/// 88  state                                UInt32   1: ready; anything else: being built
/// 92  (reserved, zero)                     UInt32
/// 96  header checksum                      UInt64   XXH64 of bytes 0..<96, seeded with "FICSHARE"
/// ```
/// The side file is derived from the table's records and never synced: bound to the table by
/// its device, inode and header checksum, a side file left from another table (a copy, a
/// rebuilt table of another format) never passes for this one's.
struct SharedStateHeader: Equatable {
    /// "FICSHARE", little-endian.
    static let magic: UInt64 = 0x4552_4148_5343_4946
    /// The checksum's seed: "FICSHARE" again.
    static let checksumSeed: UInt64 = magic
    /// The format version.
    static let version: UInt32 = 1
    /// The state of a side file whose build finished.
    static let ready: UInt32 = 1
    /// Where the checksum sits.
    static let checksumOffset = 96
    /// Bytes of the encoded header, checksum included.
    static let length = 104

    /// The table file a side file belongs to.
    struct Binding: Equatable {
        /// The table file's device number.
        var device: UInt64
        /// The table file's inode number.
        var inode: UInt64
        /// The table header's checksum (its byte 80): the table's format.
        var tableHeaderChecksum: UInt64
    }

    /// The layout the side file has.
    var layout: SharedStateLayout
    /// The table it belongs to.
    var binding: Binding
    /// Identifies one build of the side file (never 0).
    var buildNonce: UInt64
    /// 1 once built (``ready``).
    var state: UInt32

    /// The header as stored: ``length`` bytes, the checksum last.
    func encode() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.length)
        bytes.withUnsafeMutableBytes { b in
            func u32(_ v: UInt32, _ o: Int) { b.storeBytes(of: v.littleEndian, toByteOffset: o, as: UInt32.self) }
            func u64(_ v: UInt64, _ o: Int) { b.storeBytes(of: v.littleEndian, toByteOffset: o, as: UInt64.self) }
            u64(Self.magic, 0)
            u32(Self.version, 8)
            u32(UInt32(layout.pageSize), 12)
            u64(binding.device, 16)
            u64(binding.inode, 24)
            u64(binding.tableHeaderChecksum, 32)
            u64(buildNonce, 40)
            u64(UInt64(layout.maximumCount), 48)
            u64(UInt64(layout.slotsPerChunk), 56)
            u32(UInt32(SharedStateLayout.holderCapacity), 64)
            u32(UInt32(SharedStateLayout.cellLength), 68)
            u64(UInt64(layout.cellsOffset), 72)
            u64(UInt64(layout.indexRegionLength), 80)
            u32(state, 88)
            u64(Self.checksum(UnsafeRawBufferPointer(b)), Self.checksumOffset)
        }
        return bytes
    }

    /// The checksum of the header bytes at the start of `b` (at least ``checksumOffset`` bytes).
    static func checksum(_ b: UnsafeRawBufferPointer) -> UInt64 {
        XXH64.hash(b.baseAddress, count: checksumOffset, seed: checksumSeed)
    }

    /// Why a side file's header cannot be trusted for a table.
    struct Mismatch: Error, Equatable, CustomStringConvertible {
        /// Which part of the header is wrong.
        enum Kind: Equatable {
            /// Fewer bytes than a header.
            case tooShort
            /// Not a side file.
            case magic
            /// The bytes were changed or torn.
            case checksum
            /// Another format version.
            case version
            /// Laid out for another page size.
            case pageSize
            /// Laid out for another geometry (count, chunk, holders, cells, index).
            case geometry
            /// Built for another table file, or for another format of it, or another build.
            case binding
            /// Not fully built.
            case state
            /// A reserved field is not zero.
            case reserved
        }

        /// Which part is wrong.
        let kind: Kind
        /// A sentence naming the field and what it holds.
        let reason: String

        /// The reason.
        var description: String { reason }
    }

    /// Parses and validates a header for a table laid out as `layout` and bound as `binding`.
    /// `nonce`, when given, is the build the caller knows of; otherwise any build (not 0) is
    /// accepted. Any bytes are safe: the answer is the header, or the first thing that does not
    /// match, named.
    static func decode(_ b: UnsafeRawBufferPointer, layout: SharedStateLayout, binding: Binding, nonce: UInt64? = nil) -> Result<
        SharedStateHeader, Mismatch
    > {
        func fail(_ kind: Mismatch.Kind, _ reason: String) -> Result<SharedStateHeader, Mismatch> {
            .failure(Mismatch(kind: kind, reason: "the shared state's " + reason))
        }
        guard b.count >= length else { return fail(.tooShort, "header is cut off at \(b.count) bytes") }
        func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
        func u64(_ o: Int) -> UInt64 { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
        guard u64(0) == magic else { return fail(.magic, "file does not start with its signature") }
        guard u64(checksumOffset) == checksum(b) else { return fail(.checksum, "header checksum does not match") }
        guard u32(8) == version else { return fail(.version, "version \(u32(8)) is not \(version)") }
        guard u32(12) == UInt32(layout.pageSize) else { return fail(.pageSize, "page size \(u32(12)) is not \(layout.pageSize)") }
        let geometry: [(String, UInt64, Int)] = [
            ("maximum count", u64(48), layout.maximumCount),
            ("slots per chunk", u64(56), layout.slotsPerChunk),
            ("holder capacity", UInt64(u32(64)), SharedStateLayout.holderCapacity),
            ("cell length", UInt64(u32(68)), SharedStateLayout.cellLength),
            ("cells offset", u64(72), layout.cellsOffset),
            ("index region length", u64(80), layout.indexRegionLength)
        ]
        for (name, found, expected) in geometry where found != UInt64(expected) {
            return fail(.geometry, "\(name) \(found) is not \(expected)")
        }
        let bound: [(String, UInt64, UInt64)] = [
            ("table device", u64(16), binding.device),
            ("table inode", u64(24), binding.inode),
            ("table header checksum", u64(32), binding.tableHeaderChecksum)
        ]
        for (name, found, expected) in bound where found != expected {
            return fail(.binding, "\(name) \(found) is not the table's \(expected)")
        }
        guard u64(40) != 0 else { return fail(.binding, "build nonce is 0") }
        if let nonce, u64(40) != nonce { return fail(.binding, "build nonce \(u64(40)) is not the build \(nonce) this process joined") }
        guard u32(88) == ready else { return fail(.state, "state \(u32(88)) is not \(ready) (ready)") }
        guard u32(92) == 0 else { return fail(.reserved, "reserved field holds \(u32(92))") }
        return .success(SharedStateHeader(layout: layout, binding: binding, buildNonce: u64(40), state: ready))
    }
}
