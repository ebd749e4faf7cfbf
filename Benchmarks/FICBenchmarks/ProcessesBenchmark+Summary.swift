import Foundation

/// `fic-bench processes`: the benchmark's name, its run with the command line's context, and its table.
extension ProcessesBenchmark: Benchmark {
    /// `processes`.
    public static let name = "processes"

    /// What it measures, for the help.
    public static let abstract =
        "one cache used by several processes at once: 4 processes each looking up a screenful of images every 16 ms while another ingests photos (lookup p50 and p99 against one reader alone, against a dictionary in memory and against the floor of a pinned zero-copy lookup; the ingest rate against the ingest alone), the time from a store in one process to a hit in another, and from a writer killed holding the table's writer lock to another's next store."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> ProcessesBenchmarkResult {
        try run(
            benchmarks: context.executables.benchmarks, testdata: context.testdata, workDirectory: context.workDirectory, log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: ProcessesBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line(
            "\n  \(r.readers) reader processes, each looking up \(r.lookupsPerTick) of \(r.readerImages) images (\(r.side)×\(r.side) BGRA) every \(String(format: "%.0f", r.tickMs)) ms, beside one process ingesting \(r.ingestImages) photos"
        )
        table.row("figure", "value", "target", nil)
        table.row("lookup alone: p50 / p99", String(format: "%.0f / %.0f ns", r.lookupAloneP50Ns, r.lookupAloneP99Ns))
        table.row("lookup beside the ingest: p50 / p99", String(format: "%.0f / %.0f ns", r.lookupWithIngestP50Ns, r.lookupWithIngestP99Ns))
        table.row(
            "  p50 beside the ingest / alone", String(format: "%.2f×", r.lookupP50Ratio), "≤ 1.2",
            r.targetsMet["lookup_p50_with_ingest_le_1_2x_alone"])
        table.row(
            "  p99 beside the ingest", String(format: "%.2f µs (%.2f×)", r.lookupWithIngestP99Ns / 1000, r.lookupP99Ratio), "≤ 2 µs",
            r.targetsMet["lookup_p99_with_ingest_le_2us"])
        table.row(
            "  a tick's first lookup (median), alone / beside",
            String(format: "%.1f / %.1f µs", r.lookupAloneFirstOfTickP50Ns / 1000, r.lookupWithIngestFirstOfTickP50Ns / 1000))
        table.row(
            "  p99 of the other lookups, alone / beside",
            String(format: "%.2f / %.2f µs", r.lookupAloneAfterFirstP99Ns / 1000, r.lookupWithIngestAfterFirstP99Ns / 1000))
        table.row(
            "  baseline, a [String: [UInt8]] in memory, alone: p50 / p99",
            String(format: "%.0f / %.0f ns", r.inMemoryP50Ns, r.inMemoryP99Ns))
        table.row(
            "    its first lookup of a tick (median); p99 of the others",
            String(format: "%.1f µs; %.2f µs", r.inMemoryFirstOfTickP50Ns / 1000, r.inMemoryAfterFirstP99Ns / 1000))
        table.row("    p99 beside the ingest / the baseline's", String(format: "%.2f×", r.lookupP99ToInMemory))
        if let p50 = r.floorP50Ns, let p99 = r.floorP99Ns, let first = r.floorFirstOfTickP50Ns, let ratio = r.lookupP99ToFloor {
            table.row("  floor, a pinned zero-copy lookup (LookupFloor), alone: p50 / p99", String(format: "%.0f / %.0f ns", p50, p99))
            table.row("    its first lookup of a tick (median)", String(format: "%.1f µs", first / 1000))
            table.row("    p99 beside the ingest / the floor's", String(format: "%.2f×", ratio))
        }
        func pages(_ count: Int?) -> String { count.map(String.init) ?? "n/a" }
        table.row(
            "  memory pages one lookup touches, cache / baseline / floor",
            "\(pages(r.lookupPagesTouched)) / \(pages(r.inMemoryPagesTouched)) / \(pages(r.floorPagesTouched))")
        func byKind(_ pages: [String: Int]?) -> String {
            pages.map { $0.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") }
                ?? "n/a"
        }
        table.row("    where, cache (last round)", byKind(r.lookupPagesByKind))
        table.row("    where, baseline (last round)", byKind(r.inMemoryPagesByKind))
        table.row("    where, floor (last round)", byKind(r.floorPagesByKind))
        table.row(
            "  slowest lookup alone / beside the ingest",
            String(format: "%.1f / %.1f µs", r.lookupAloneMaxNs / 1000, r.lookupWithIngestMaxNs / 1000))
        table.row("  lookups timed, alone / beside; misses", "\(r.lookupsAlone) / \(r.lookupsWithIngest); \(r.lookupMisses)")
        table.row("  ticks begun over a tick late, alone / beside", "\(r.lateTicksAlone) / \(r.lateTicksWithIngest)")
        table.row("ingest alone (median of rounds)", String(format: "%.0f images/s", r.ingestAloneMedian))
        table.row("ingest beside 4 readers (median)", String(format: "%.0f images/s", r.ingestWithReadersMedian))
        table.row(
            "  beside readers / alone", String(format: "%.2f×", r.ingestRatio), "≥ 0.9", r.targetsMet["ingest_with_readers_ge_0_9x_alone"])
        table.row(
            "store in one process → hit in another",
            String(format: "p50 %.1f, p99 %.1f, max %.1f µs", r.storeToHitP50Us, r.storeToHitP99Us, r.storeToHitMaxUs),
            "max ≤ 1 ms", r.targetsMet["store_to_hit_max_le_1ms"])
        table.row(
            "writer killed holding the lock → next store",
            String(format: "median %.2f, max %.2f ms (%d kills)", r.killedHoldingLockMedianMs, r.killedHoldingLockMaxMs, r.lockedKills),
            "max ≤ 10 ms", r.targetsMet["killed_writer_to_next_store_max_le_10ms"])
        table.row("  kill → killed writer reaped (median)", String(format: "%.2f ms", r.killedHoldingLockExitMedianMs))
        table.row(
            "writer killed at random → next store",
            String(format: "median %.2f, max %.2f ms", r.killedAtRandomMedianMs, r.killedAtRandomMaxMs))
        table.row(
            "  not holding the lock (median); holding it",
            String(
                format: "%.2f ms; %d of %d", r.killedAtRandomNotHoldingLockMedianMs, r.killedAtRandomHoldingLock,
                r.killedAtRandomToNextStoreMs.count))
        table.row("  no kill: a random instant → next store", String(format: "median %.2f, max %.2f ms", r.noKillMedianMs, r.noKillMaxMs))
        table.row("  the other writer's store period (median)", String(format: "%.0f µs", r.otherWriterStorePeriodMedianUs))
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
