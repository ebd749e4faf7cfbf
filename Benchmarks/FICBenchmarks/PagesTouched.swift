import FICCore
import Glibc
import SystemPackage

/// Counts the distinct memory pages (code and data, 4 KiB) one call touches, with the kernel's
/// referenced bits: `/proc/self/clear_refs` clears them, `/proc/self/smaps_rollup` sums the pages
/// referenced since.
///
/// After the process has slept, every page touched again costs a walk of the page tables (on a
/// virtual machine, of two sets of them), so a call's first run after a pause costs about its
/// page count times that walk: the figure that explains a lookup's time after idle.
struct PagesTouched {
    private let clear: FileDescriptor
    private let rollup: FileDescriptor
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 8)

    /// Nil where the kernel offers no referenced bits to this process.
    init?() {
        guard let clear = try? FileDescriptor.open(atPath: "/proc/self/clear_refs", .writeOnly) else { return nil }
        guard let rollup = try? FileDescriptor.open(atPath: "/proc/self/smaps_rollup", .readOnly) else {
            clear.closeQuietly()
            return nil
        }
        self.clear = clear
        self.rollup = rollup
    }

    /// Closes the files and frees the buffer.
    func close() {
        clear.closeQuietly()
        rollup.closeQuietly()
        buffer.deallocate()
    }

    /// The median over `runs` of the pages `body` touches, less the median the counting itself
    /// touches (measured the same way around an empty body); nil when the kernel does not say.
    func median(runs: Int = 41, _ body: (Int) -> Void) -> Int? {
        guard let own = medianPages(runs: runs, { _ in }), let total = medianPages(runs: runs, body) else { return nil }
        return max(0, total - own)
    }

    private func medianPages(runs: Int, _ body: (Int) -> Void) -> Int? {
        var pages: [Int] = []
        for run in 0..<runs {
            // Read once first, so that the read's own pages are referenced before and after alike.
            guard referencedKiB() != nil, (try? Self.clearAll.withUnsafeBytes { try clear.writeAll($0, at: 0, path: nil) }) != nil else {
                return nil
            }
            body(run)
            guard let kib = referencedKiB() else { return nil }
            pages.append(kib / 4)
        }
        pages.sort()
        return pages[pages.count / 2]
    }

    /// "1": clear the referenced bits of every page of the process.
    private static let clearAll: [UInt8] = [0x31]

    private func referencedKiB() -> Int? {
        guard let count = try? rollup.readAll(into: buffer, at: 0, path: nil), count > 0 else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("Referenced:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}
