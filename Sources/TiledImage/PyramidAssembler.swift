import FICCore
import Glibc
import ImageCodec
import SystemPackage

/// Feeds a pyramid writer on the pipeline's thread.
private final class WriterConsumer: RowConsumer {
    let writer: PyramidWriter
    init(_ writer: PyramidWriter) { self.writer = writer }
    func consume(_ batch: RowBatch) throws {
        try writer.append(rows: batch.row(0), count: batch.count, bytesPerRow: batch.bytesPerRow)
    }
}

/// The receiving end of a build: once the decoder knows the image's size it creates the level
/// files (unnamed) and the writers, takes the decoded rows, and at the end has the pyramidal TIFF
/// completed and named, or hands the level files to a throwaway pyramid. Upright images go
/// straight into the pyramid; others are first stored as tiles and turned upright at the end
/// (``OrientationReplay``).
final class PyramidAssembler: RowSink {
    private let options: TilePyramidOptions
    /// Where unnamed files go (the TIFF's folder, or the temporary folder).
    private let scratch: Directory
    private var header: SourceHeader?
    private var geometry: PyramidGeometry?
    private var levelFiles: [FileDescriptor] = []
    private var writer: PyramidWriter?
    private var stored: (file: FileDescriptor, writer: PyramidWriter)?
    private var pipeline: RowPipeline?
    private var finished = false
    /// For a TIFF destination: its name in ``scratch`` and the compression asked for.
    private let tiffTarget: (name: String, compression: PyramidTIFFCompression?)?
    /// For a TIFF destination, once the size is known: what compresses the levels into it.
    private var tiffStage: PyramidTIFFBuildStage?
    /// What readers of the unfinished pyramid may read.
    let progress: BuildProgress
    /// Called with a TIFF destination's file once it has its name, before the pyramid is opened
    /// on it (a store records it as its own).
    var committed: (@Sendable (PyramidTIFFFileSource) throws -> Void)?

    init(destination: TilePyramidDestination, options: TilePyramidOptions, progress: BuildProgress) throws {
        self.options = options
        self.progress = progress
        switch destination {
        case .tiff(let path, let compression):
            // The level files are unnamed files beside the TIFF: the same file system, which the
            // caller chose for the pyramid's size.
            let (parent, name) = Directory.split(path)
            scratch = try Directory.open(parent, create: false, followLinks: true)
            tiffTarget = (name, compression)
        case .temporary(let path):
            tiffTarget = nil
            let environment = getenv("TMPDIR").map { String(cString: $0) }
            scratch = try Directory.open(path ?? (environment?.isEmpty == false ? environment! : "/tmp"), create: true, followLinks: true)
        }
    }

    deinit {
        if !finished { abandon() }
    }

    /// An unlinked file in the scratch folder.
    func makeUnnamedFile(_ name: String) throws -> FileDescriptor {
        try scratch.makeTemporaryFile(for: name).takeDescriptor()
    }

    private func makeLevelFile(_ level: TileLevel) throws -> FileDescriptor {
        let name = "level-\(level.index).tiles"
        let fd = try makeUnnamedFile(name)
        do throws {
            // Reserve the blocks: a full disk fails here, before any decoding, and writes are faster.
            try fd.allocate(offset: 0, length: level.byteCount, path: scratch.child(name))
            // Whole tile rows go from the (page-aligned) bands to the disk without passing through
            // the page cache where the file system allows it: on a machine where fresh page-cache
            // pages are expensive (virtual machines that hand freed memory back to the host),
            // buffered writes of a 1.8 GB pyramid cost seconds of system time; direct writes cost
            // almost none and overlap with decoding. Tiles are read back through the page cache
            // as usual (the kernel keeps both views coherent).
            // Not for a TIFF's level files: the compressing threads read each tile back as soon
            // as it is written, from the page cache; direct writes would make every such read a
            // disk read (an 18000² JPEG: ready 2.4 s after its last byte instead of 0.25 s).
            if tiffTarget == nil { fd.setDirectIO(true) }
        } catch {
            fd.closeQuietly()
            throw error
        }
        return fd
    }

    func begin(_ header: SourceHeader) throws {
        guard self.header == nil else { throw ImageCacheError(.corruptData, "the image declared its size twice") }
        let pixels = header.width.multipliedReportingOverflow(by: header.height)
        guard !pixels.overflow, pixels.partialValue <= options.maximumPixelCount else {
            throw ImageCacheError(
                .dimensionsTooLarge, "the image is \(header.width)×\(header.height) pixels, over the limit of \(options.maximumPixelCount)")
        }
        self.header = header
        let swaps = header.orientation.swapsDimensions
        let view = options.viewSize.map { (width: $0.width, height: $0.height) }
        let geometry = try PyramidGeometry(
            width: swaps ? header.height : header.width, height: swaps ? header.width : header.height, viewSize: view)
        self.geometry = geometry
        for level in geometry.levels {
            levelFiles.append(try makeLevelFile(level))
        }
        // Rows of tiles are reported as their writes complete; a rotated image's only once it is
        // turned upright at the end (the stored writer reports nothing).
        let writer = try PyramidWriter(
            geometry: geometry, files: levelFiles, overlapWrites: options.overlapWrites, progress: progress)
        self.writer = writer
        if let tiffTarget {
            let compression = tiffTarget.compression ?? (header.hasAlpha ? .deflate : .jpeg)
            let layout = try PyramidTIFFLayout(geometry: geometry, compression: compression, hasAlpha: header.hasAlpha)
            // By default, level 0 of a JPEG keeps the source's own quantisation: its blocks are the
            // source's blocks (tiles start on multiples of 256, the image upright as stored), so
            // the tiles come back as large as the source and nearer its decode than quality 95's.
            let sourceTables = tiffTarget.compression == nil && header.orientation == .up ? header.jpegQuantization : nil
            let stage = try PyramidTIFFBuildStage(
                writer: PyramidTIFFWriter(directory: scratch, name: tiffTarget.name, layout: layout, levelZeroTables: sourceTables),
                geometry: geometry,
                files: levelFiles, progress: progress, threadCount: PyramidTIFFBuildStage.defaultThreadCount)
            tiffStage = stage
            // Weakly: the progress outlives the stage (readers of the builder keep it), and the stage
            // holds the progress; a strong capture kept the stage, its threads' work and the TIFF's
            // descriptor (with any lock on the file) alive after the build.
            try progress.begin(geometry: geometry, files: levelFiles) { [weak stage] in stage?.rowsCompleted(level: $0, tileRows: $1) }
        } else {
            try progress.begin(geometry: geometry, files: levelFiles)
        }
        let consumer: WriterConsumer
        if header.orientation == .up {
            consumer = WriterConsumer(writer)
        } else {
            let storedGeometry = try PyramidGeometry(width: header.width, height: header.height, viewSize: (header.width, header.height))
            let file = try makeUnnamedFile("stored.tiles")
            // Full length now: rows past the image's last one are never written and read as zeros.
            do throws {
                try file.allocate(offset: 0, length: storedGeometry.levels[0].byteCount, path: nil)
            } catch {
                file.closeQuietly()
                throw error
            }
            let storedWriter = try PyramidWriter(
                geometry: storedGeometry, files: [file], overlapWrites: options.overlapWrites)
            stored = (file, storedWriter)
            consumer = WriterConsumer(storedWriter)
        }
        let rowBytes = header.width * 4
        let rowsPerBatch = max(16, min(256, (2 << 20) / rowBytes)) & ~15
        pipeline = try RowPipeline(consumer: consumer, rowsPerBatch: rowsPerBatch, bytesPerRow: rowBytes)
    }

    /// Rows' colours are converted on the pipeline's writer thread (``RowPipeline``).
    var convertsColor: Bool { true }

    func acquireBatch() throws -> RowBatch {
        guard let pipeline else { throw ImageCacheError(.corruptData, "rows arrived before the image's size") }
        // A cancel from another thread while a whole file is being decoded under the build's lock.
        if let failure = progress.failure { throw failure }
        return try pipeline.acquire()
    }

    func submit(_ batch: RowBatch) throws {
        guard let pipeline else { throw ImageCacheError(.corruptData, "rows arrived before the image's size") }
        try pipeline.submit(batch)
    }

    /// Waits for every row to be written, turns a rotated image upright, writes the metadata and
    /// returns the pyramid.
    func complete(sourceBytes: Int, statistics: () -> TilePyramidBuildStatistics) throws -> TilePyramid {
        guard let header, let geometry, let writer, let pipeline else {
            throw ImageCacheError(.truncated, "the input ended before the image's size was known")
        }
        try pipeline.close()
        self.pipeline = nil
        if let stored {
            guard stored.writer.isComplete else {
                throw ImageCacheError(.truncated, "the image ended after \(stored.writer.rowsReceived) of \(header.height) rows")
            }
            try stored.writer.drain()
            try OrientationReplay.run(
                stored: stored.file, storedLevel: stored.writer.geometry.levels[0], orientation: header.orientation, into: writer)
            stored.file.closeQuietly()
            self.stored = nil
        }
        guard writer.isComplete else {
            throw ImageCacheError(.truncated, "the image ended after \(writer.rowsReceived) of \(geometry.height) rows")
        }
        try writer.drain()
        if let tiffStage {
            // Every row of tiles has been reported: the stage has the last ones queued.
            try tiffStage.finish()
            let source = try PyramidTIFFFileSource(file: tiffStage.writer.readableDescriptor(), path: tiffStage.writer.path)
            try committed?(source)
            let pyramid = try TilePyramid.open(tiff: source, header: header, statistics: statistics())
            finished = true
            self.tiffStage = nil
            for fd in levelFiles { fd.closeQuietly() }
            levelFiles = []
            return pyramid
        }
        for fd in levelFiles { fd.setDirectIO(false) }  // reads go through the page cache
        finished = true
        let files = levelFiles
        levelFiles = []
        return TilePyramid(geometry: geometry, files: files, source: header, sourceBytes: sourceBytes, statistics: statistics())
    }

    /// Stops the writer and removes everything written: no half-built pyramid is left behind.
    func abandon() {
        finished = true
        pipeline?.cancel()
        pipeline = nil
        // Its threads read the level files through descriptors of their own; the TIFF never
        // gets its name.
        tiffStage?.cancel()
        tiffStage = nil
        // No write may still be running when the descriptors close (their numbers get reused).
        stored?.writer.stop()
        writer?.stop()
        writer = nil
        stored?.file.closeQuietly()
        stored = nil
        for fd in levelFiles { fd.closeQuietly() }
        levelFiles = []
    }
}
