#if Tool
import FICDemo
import FastImageCache
import ImageLoader

/// Cells from the network, through the cache's lanes. The frame path stays synchronous:
/// ``image(for:)`` is a lookup of the first frame and the animation record (a placeholder when
/// nothing is stored; an animated image plays, ``GalleryAnimations``), and
/// ``visibleCellsChanged(_:direction:)`` posts where the grid is to ``NetworkRequests`` and
/// reads one snapshot of its state and one of the lanes' queue lengths; requests, prefetches,
/// demotions and cancellations are made on the requests' own queue, and images land in the
/// tables from the cache's threads.
final class NetworkCellSource: CellSource {
    let name = "network"
    private let cache: ImageCache
    private let format: String
    private let entities: [URLImageEntity]
    private let photoOfCell: @Sendable (Int) -> Int
    private let requests: NetworkRequests
    private let loader: OriginalsLoader
    private var lastPosition: NetworkRequests.Position?
    private var settled = false
    private var failed: Set<Int> = []
    private var failedVersion = 0
    /// The lanes now, and the most each held at once during the run.
    private var lanes: RequestQueueStatistics
    private var peaks = (queuedFast: 0, fetchingFast: 0, queuedSlow: 0, fetchingSlow: 0)

    /// - Throws: ``CLIError`` when the system cannot start the requests' thread.
    init(content: NetworkGalleryContent, layout: GalleryLayout) throws {
        cache = content.cache
        format = content.format.name
        entities = content.entities
        loader = content.loader
        let lines = content.photoOfLine
        let photoOfCell: @Sendable (Int) -> Int = { lines[$0 % lines.count] }
        self.photoOfCell = photoOfCell
        lanes = content.cache.requestStatistics
        requests = try NetworkRequests(
            cache: content.cache, format: content.format.name, entities: content.entities, layout: layout, photoOfCell: photoOfCell)
    }

    func image(for index: Int) -> LiveCell? {
        LiveCell.firstFrame(of: AnimationPlayer(cache: cache, entity: entities[photoOfCell(index)], format: format))
    }

    func hasFailed(_ index: Int) -> Bool {
        !failed.isEmpty && failed.contains(photoOfCell(index))
    }

    func visibleCellsChanged(_ visible: Range<Int>, direction: Int) {
        let position = NetworkRequests.Position(visible: visible, direction: direction)
        if position != lastPosition {
            lastPosition = position
            requests.post(position)
        }
        let snapshot = requests.snapshot(knownFailedVersion: failedVersion)
        settled = snapshot.settled
        if let changed = snapshot.failed {
            failed = changed
            failedVersion = snapshot.failedVersion
        }
        lanes = cache.requestStatistics
        peaks.queuedFast = max(peaks.queuedFast, lanes.queuedFast)
        peaks.fetchingFast = max(peaks.fetchingFast, lanes.fetchingFast)
        peaks.queuedSlow = max(peaks.queuedSlow, lanes.queuedSlow)
        peaks.fetchingSlow = max(peaks.fetchingSlow, lanes.fetchingSlow)
    }

    var isIdle: Bool { lastPosition != nil && settled && lanes.isIdle }

    func overlayLines() -> [String] {
        let (counters, _) = requests.counters
        return [
            "fast lane \(lanes.queuedFast) queued \(lanes.fetchingFast) running   decoding \(lanes.decoding + lanes.awaitingDecode)",
            "slow lane \(lanes.queuedSlow) queued \(lanes.fetchingSlow) running",
            "requested \(counters.requested) prefetched \(counters.prefetched) demoted \(counters.demoted)",
            "cancelled \(counters.cancelled) failed \(counters.failed)"
        ]
    }

    func statistics() -> [String: StatValue] {
        let (counters, lastError) = requests.counters
        let end = cache.requestStatistics
        let loaderStats = loader.statistics
        var network: [String: StatValue] = [
            "photos": .int(entities.count),
            "requested": .int(counters.requested), "raised": .int(counters.raised), "demoted": .int(counters.demoted),
            "prefetched": .int(counters.prefetched), "cancelled": .int(counters.cancelled),
            "loaded": .int(counters.loaded), "failed": .int(counters.failed),
            "bytes_downloaded": .int(loaderStats.bytesDownloaded), "downloads": .int(loaderStats.downloads),
            "source_fetches": .int(cache.statistics.sourceFetches),
            "stored_images": .int(cache.statistics.formats.first { $0.format == format }?.count ?? 0)
        ]
        if let lastError { network["last_error"] = .string(lastError) }
        return [
            "network": .object(network),
            "lanes": .object([
                "fast_queued_max": .int(peaks.queuedFast), "fast_running_max": .int(peaks.fetchingFast),
                "slow_queued_max": .int(peaks.queuedSlow), "slow_running_max": .int(peaks.fetchingSlow),
                "promotions": .int(end.promotions), "demotions": .int(end.demotions),
                "at_end": .object([
                    "fast_queued": .int(end.queuedFast), "fast_running": .int(end.fetchingFast),
                    "slow_queued": .int(end.queuedSlow), "slow_running": .int(end.fetchingSlow)
                ])
            ])
        ]
    }

    func stop() {
        requests.stop()
    }
}
#endif
