#if Tool
import FICCommandLine
import FastImageCache

/// The demo's table of figures, in the manner of the original demo's statistics.
package struct DemoReport {
    /// One way of scrolling: how long it took to prepare, how it scrolled, what it stored.
    package struct Run {
        var preparation: UInt64
        var scroll: ScrollResult
        var diskBytes: Int
    }

    package let photoCount: Int
    package let formats: [ImageFormat]
    package let conventional: Run
    package let cached: Run
    package let thumbTableBytes: Int

    package func text() -> String {
        let c = conventional, f = cached
        func ms(_ ns: UInt64) -> String { Formatting.duration(nanoseconds: Double(ns)) }
        func memory(_ bytes: Int) -> String { "+" + Formatting.bytes(max(bytes, 0)) }
        let rows: [(String, String, String)] = [
            ("preparation", ms(c.preparation) + " (\(photoCount) JPEG thumbnails)", ms(f.preparation) + " (ingest, \(photoCount) decodes)"),
            (
                "frames per second", Formatting.grouped(Int(c.scroll.framesPerSecond.rounded())),
                Formatting.grouped(Int(f.scroll.framesPerSecond.rounded()))
            ),
            ("frames over 16.7 ms", Formatting.grouped(c.scroll.framesOver16ms), Formatting.grouped(f.scroll.framesOver16ms)),
            ("frames over 8.3 ms", Formatting.grouped(c.scroll.framesOver8ms), Formatting.grouped(f.scroll.framesOver8ms)),
            ("slowest frame", ms(c.scroll.slowestNanoseconds), ms(f.scroll.slowestNanoseconds)),
            (
                "image per new cell", Formatting.duration(nanoseconds: c.scroll.nanosecondsPerFetch) + " (decode)",
                Formatting.duration(nanoseconds: f.scroll.nanosecondsPerFetch) + " (lookup)"
            ),
            (
                "images fetched", Formatting.grouped(c.scroll.fetches) + missed(c.scroll),
                Formatting.grouped(f.scroll.fetches) + missed(f.scroll)
            ),
            ("disk used", Formatting.bytes(c.diskBytes), Formatting.bytes(f.diskBytes) + " (thumb \(Formatting.bytes(thumbTableBytes)))"),
            ("private dirty memory", memory(c.scroll.memory.privateDirty), memory(f.scroll.memory.privateDirty)),
            ("file-backed resident", memory(c.scroll.memory.fileBacked), memory(f.scroll.memory.fileBacked))
        ]
        let w0 = rows.map(\.0.count).max()!, w1 = max(rows.map(\.1.count).max()!, "conventional".count)
        var lines = formats.map { "  format \($0.description)" }
        lines.append("")
        lines.append("  " + Formatting.pad("", w0) + "  " + Formatting.pad("conventional", w1) + "  Fast Image Cache")
        for row in rows {
            lines.append("  " + Formatting.pad(row.0, w0) + "  " + Formatting.pad(row.1, w1) + "  " + row.2)
        }
        lines.append("")
        let frameRatio = f.scroll.totalNanoseconds == 0 ? 0 : Double(c.scroll.totalNanoseconds) / Double(f.scroll.totalNanoseconds)
        let fetchRatio = f.scroll.nanosecondsPerFetch == 0 ? 0 : c.scroll.nanosecondsPerFetch / f.scroll.nanosecondsPerFetch
        let scrolled =
            frameRatio >= 1 ? "\(Formatting.fixed(frameRatio, 1))× faster" : "\(Formatting.fixed(1 / max(frameRatio, 1e-9), 1))× slower"
        lines.append(
            "  speed: the cache scrolled \(scrolled) than the conventional way; each new cell's image was ready \(Formatting.fixed(fetchRatio, 0))× sooner"
        )
        return lines.joined(separator: "\n")
    }

    private func missed(_ scroll: ScrollResult) -> String {
        scroll.misses == 0 ? "" : " (\(Formatting.grouped(scroll.misses)) missing)"
    }
}
#endif
