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
        func median(_ body: (Int) -> Void) -> Int? {
            samples(runs: runs, body, read: referencedKiB).map { $0.map { $0 / 4 }.sorted()[runs / 2] }
        }
        guard let own = median({ _ in }), let total = median(body) else { return nil }
        return max(0, total - own)
    }

    /// The same count split by where the pages are (``kind(ofMapping:permissions:)``): the median
    /// of each kind over `runs`, less what the counting itself touches there; kinds of 0 left out.
    func medianByKind(runs: Int = 41, _ body: (Int) -> Void) -> [String: Int] {
        func medians(_ body: (Int) -> Void) -> [String: Int] {
            guard let runsByKind = samples(runs: runs, body, read: referencedByKind) else { return [:] }
            let kinds = Set(runsByKind.flatMap(\.keys))
            // A run that touched no page of a kind counts as 0 there.
            return Dictionary(uniqueKeysWithValues: kinds.map { kind in (kind, runsByKind.map { $0[kind] ?? 0 }.sorted()[runs / 2]) })
        }
        let own = medians { _ in }
        var pages: [String: Int] = [:]
        for (kind, total) in medians(body) where total > (own[kind] ?? 0) { pages[kind] = total - (own[kind] ?? 0) }
        return pages
    }

    /// `read` after each of `runs` runs of `body`, the referenced bits cleared before each; nil
    /// when the kernel does not say.
    private func samples<T>(runs: Int, _ body: (Int) -> Void, read: () -> T?) -> [T]? {
        var samples: [T] = []
        for run in 0..<runs {
            // Read once first, so that the read's own pages are referenced before and after alike.
            guard read() != nil, (try? Self.clearAll.withUnsafeBytes { try clear.writeAll($0, at: 0, path: nil) }) != nil else {
                return nil
            }
            body(run)
            guard let sample = read() else { return nil }
            samples.append(sample)
        }
        return samples
    }

    /// Referenced pages per kind of mapping, from `/proc/self/smaps`.
    private func referencedByKind() -> [String: Int]? {
        guard let smaps = try? FileDescriptor.open(atPath: "/proc/self/smaps", .readOnly) else { return nil }
        defer { smaps.closeQuietly() }
        var bytes: [UInt8] = []
        while let count = try? smaps.read(into: buffer), count > 0 { bytes += buffer[..<count] }
        var pages: [String: Int] = [:]
        var kind = ""
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.first == "Referenced:" {
                if let kib = fields.dropFirst().first.flatMap({ Int($0) }), kib > 0 { pages[kind, default: 0] += kib / 4 }
            } else if fields.count >= 5, fields[0].contains("-"), fields[0].allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                kind = Self.kind(ofMapping: fields.count > 5 ? fields[5...].joined(separator: " ") : "", permissions: String(fields[1]))
            }
        }
        return pages
    }

    /// This process's executable, as `/proc/self/maps` names it.
    private static let ownExecutable: String? = {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        return length > 0 ? String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }()

    /// A mapping's kind: the executable's code or data, a shared library's code or data (by its
    /// name), the heap and anonymous memory, a mapped file (by its extension), or shared memory.
    static func kind(ofMapping path: String, permissions: String) -> String {
        let executable = permissions.contains("x")
        if path.isEmpty || path == "[heap]" { return "heap and anonymous" }
        if path.hasPrefix("[") { return path }
        if path.hasPrefix("/memfd:") || path.hasPrefix("/dev/shm") || path.contains("(deleted)") { return "shared memory" }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if path == ownExecutable {
            return executable ? "executable's code" : "executable's data"
        }
        if name.contains(".so") {
            let library = name.split(separator: ".").first.map(String.init) ?? name
            return "\(library) " + (executable ? "code" : "data")
        }
        return "file *." + (name.split(separator: ".").last.map(String.init) ?? name)
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
