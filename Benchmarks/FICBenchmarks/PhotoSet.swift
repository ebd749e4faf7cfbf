import FICHarness
import Foundation

/// Distinct JPEG photos of about 200 KB made from the test photos: each is re-encoded with
/// `cjpeg` (enlarged 2× by `djpeg` when small) at the quality that comes closest to 200 KB, at
/// three qualities around it, and every copy gets a comment segment with its number, so that no
/// two files are the same.
enum PhotoSet {
    /// Writes `count` photos `0.jpg`… into `folder`; returns their sizes in bytes, by number.
    static func generate(count: Int, from testdata: String, into folder: String, scratch: String, targetBytes: Int = 200_000) throws
        -> [Int]
    {
        guard let djpeg = Executables.find("djpeg"), let cjpeg = Executables.find("cjpeg") else {
            throw BenchmarkError("djpeg and cjpeg are needed (Debian: libjpeg-turbo-progs)")
        }
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var variants: [[UInt8]] = []
        for (n, source) in BenchKit.photos(in: testdata).filter({ $0.lowercased().hasSuffix(".jpg") }).enumerated() {
            let ppm = scratch + "/\(n).ppm"
            try BenchmarkProcess.run("/bin/sh", ["-c", "'\(djpeg)' -ppm '\(source)' > '\(ppm)'"])
            let width = try ppmWidth(ppm)
            if width < 800 {
                try BenchmarkProcess.run("/bin/sh", ["-c", "'\(djpeg)' -scale 2/1 -ppm '\(source)' > '\(ppm)'"])
            }
            func encode(_ quality: Int) throws -> [UInt8] {
                let out = scratch + "/\(n)-\(quality).jpg"
                try BenchmarkProcess.run(cjpeg, ["-quality", "\(quality)", "-outfile", out, ppm])
                return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
            }
            var low = 40, high = 98
            while high - low > 2 {
                let mid = (low + high) / 2
                if try encode(mid).count < targetBytes { low = mid } else { high = mid }
            }
            let candidates = try [low, high].map { ($0, try encode($0)) }
            let (q, best) = candidates.min { abs($0.1.count - targetBytes) < abs($1.1.count - targetBytes) }!
            // Too small even at the best quality: a photo with little detail; leave it out.
            guard best.count > targetBytes / 2 else { continue }
            variants.append(best)
            for other in [q - 3, q + 2] where other >= 20 && other <= 100 {
                let bytes = try encode(other)
                if abs(bytes.count - targetBytes) < targetBytes / 3 { variants.append(bytes) }
            }
        }
        guard !variants.isEmpty else { throw BenchmarkError("no test photo could be made into a ~200 KB JPEG") }
        var sizes: [Int] = []
        for i in 0..<count {
            let bytes = withComment("fic loader benchmark photo \(i)", in: variants[i % variants.count])
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/\(i).jpg"))
            sizes.append(bytes.count)
        }
        return sizes
    }

    /// `jpeg` with a COM segment carrying `text` right after its SOI marker.
    static func withComment(_ text: String, in jpeg: [UInt8]) -> [UInt8] {
        let payload = Array(text.utf8)
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    private static func ppmWidth(_ path: String) throws -> Int {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let head = String(decoding: try handle.read(upToCount: 64) ?? Data(), as: UTF8.self)
        let fields = head.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 3, let width = Int(fields[1]) else { throw BenchmarkError("cannot read the size of \(path)") }
        return width
    }
}
