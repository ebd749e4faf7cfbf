import Glibc
import SystemPackage

/// Which boot of which machine is running: Linux's `boot_id`, a random UUID chosen at each boot.
///
/// Writes to a shared file mapping live in the kernel's page cache. When only a process dies,
/// everything it wrote is still there, in the order it wrote it; only a crash of the system (or
/// a power loss) can keep some pages and lose others. A file that records the boot it was
/// written under can therefore tell, when reopened, whether its writer merely stopped (same
/// boot) or the page cache may have been lost (another boot).
package struct BootIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes of the UUID, in text order.
    package let bytes: [UInt8]

    /// The boot identifier of 16 bytes (nil for any other count, or all zeros: "unknown").
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16, bytes.contains(where: { $0 != 0 }) else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses a UUID in its text form (`8-4-4-4-12` hex digits, any case, surrounding space
    /// allowed); nil when the text is anything else.
    package init?(text: String) {
        let hex = text.trimmingSpaces.filter { $0 != "-" }
        guard hex.count == 32, text.trimmingSpaces.count == 36 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes: bytes)
    }

    /// The running system's boot identifier, read once; nil where the system does not say
    /// (then nothing may be trusted across an unclean stop).
    package static let current: BootIdentifier? = read(path: "/proc/sys/kernel/random/boot_id")

    /// Reads a boot identifier from a file holding it as text.
    package static func read(path: String) -> BootIdentifier? {
        FileDescriptor.smallText(atPath: path, limit: 64).flatMap(BootIdentifier.init(text:))
    }

    package var description: String {
        let hex = SHA256Hex.lowercaseHex(bytes)
        var text = ""
        for (i, ch) in hex.enumerated() {
            if [8, 12, 16, 20].contains(i) { text.append("-") }
            text.append(ch)
        }
        return text
    }
}

extension String {
    /// The string without leading and trailing spaces and line ends.
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
