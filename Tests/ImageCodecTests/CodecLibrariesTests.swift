import CJxl
import FICHarness
import Foundation
import Testing
@testable import ImageCodec

/// The codec libraries loaded on first use: what the package decides without them must be what
/// they would decide.
@Suite struct CodecLibrariesTests {
    /// The sniffer's JPEG XL rule, written so that sniffing does not load libjxl, against libjxl's
    /// own `JxlSignatureCheck`: every prefix of both signatures, and random bytes
    /// that start like them.
    @Test func jpegXLSniffingAgreesWithLibjxl() {
        func reference(_ bytes: [UInt8]) -> SniffResult {
            switch bytes.withUnsafeBufferPointer({ JxlSignatureCheck($0.baseAddress, $0.count) }) {
            case JXL_SIG_CODESTREAM, JXL_SIG_CONTAINER: .match(offset: 0)
            case JXL_SIG_NOT_ENOUGH_BYTES: .needMoreBytes
            default: .noMatch
            }
        }
        var samples: [[UInt8]] = [[]]
        let container: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0x14]
        for n in 1...container.count { samples.append(Array(container.prefix(n))) }
        samples += [[0xFF], [0xFF, 0x0A], [0xFF, 0x0A, 0], [0xFF, 0xD8, 0xFF], [0x0A, 0xFF]]
        var random = SplitMix64(seed: 18181)
        for _ in 0..<20_000 {
            let start = [container, [0xFF, 0x0A, 0x00]][Int(random.next() % 2)]
            var bytes = Array(start.prefix(Int(random.next() % UInt64(start.count + 1))))
            bytes += (0..<Int(random.next() % 4)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !bytes.isEmpty, random.next() % 3 == 0 { bytes[Int(random.next() % UInt64(bytes.count))] ^= 1 << (random.next() % 8) }
            samples.append(bytes)
        }
        for bytes in samples {
            #expect(bytes.withUnsafeBytes { JXLFormat.sniff($0) } == reference(bytes), "\(bytes)")
        }
    }
}
