import Glibc
import Logging
import SystemPackage

/// Opens, validates, creates and rebuilds table files.
enum TableFile {
    /// An open table file with its loaded index.
    struct Opened {
        var state: TableState
        var report: TableOpenReport
    }

    /// Opens (or creates) the table `name` in `directory`.
    ///
    /// The file is opened without following links, locked (exclusively to write, shared to
    /// read), and checked to still be the file of that name once locked: a file replaced while
    /// this process waited is opened again. A file that is not a valid table of this
    /// configuration is replaced by an empty table through a new, unnamed file renamed over it,
    /// so the old file's bytes are never overwritten in place, and the name is never unlocked.
    static func open(directory: Directory, name: String, configuration: TableConfiguration, options: TableOpenOptions, logger: Logger)
        throws -> Opened
    {
        try configuration.validate()
        let expected = TableHeader(configuration: configuration)
        let layout = TableLayout(configuration: configuration)
        let path = directory.child(name)
        var writable = !options.readOnly
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + options.lockTimeout
        for _ in 0..<1000 {
            // Read before the lock is tried, so that a release between the try and the wait is seen.
            let releases = TableLockReleases.count
            // Create exclusively, so that only a file this call made is written in place.
            var created = false
            var attempt = Result { try directory.openFile(name, writable: writable, create: writable, exclusive: writable) }
            if case .success = attempt { created = writable }
            if writable, case .failure(let e as ImageCacheError) = attempt, e.errno == .fileExists {
                attempt = Result { try directory.openFile(name, writable: true) }
            }
            if writable, case .failure(let e as ImageCacheError) = attempt, e.code == .readOnly || e.errno == .permissionDenied {
                // A read-only file system (or a file we may not write): read what is there.
                writable = false
                logger.notice("the table cannot be written; it is opened read-only", metadata: ["path": "\(path)"])
                continue
            }
            let descriptor = try attempt.get()
            var opened = false
            defer { if !opened { descriptor.closeQuietly() } }
            // One opener or closer at a time, in any process (readers together): whether this one
            // is alone is decided, and acted on, before another can look.
            let gate = try TableOpenGate(
                descriptor, kind: writable ? .exclusive : .shared, timeout: max(options.lockTimeout, gateTimeout), path: path)
            defer { gate.release() }
            // A writer that gets the exclusive lock is alone; every other opener shares the file.
            let alone = try writable && descriptor.lock(.exclusive, wait: false, path: path)
            guard try alone || descriptor.lock(.shared, wait: false, path: path) else {
                // Held exclusively without the gate (a process of an older version of the package).
                if clock.now < deadline {
                    descriptor.closeQuietly()
                    opened = true
                    // Woken by a release in this process; another process's is found by trying
                    // again, at least every 10 ms.
                    TableLockReleases.wait(after: releases, upTo: min(Duration.milliseconds(10), deadline - clock.now))
                    continue
                }
                throw ImageCacheError(
                    .inUse, "the table is open in another process that does not share it; close it first", path: path, errno: .wouldBlock)
            }
            // The name may have been replaced (a rebuild by another process) between opening and locking.
            let st = try descriptor.status(path: path)
            guard let named = try directory.status(of: name), named.isSameFile(as: st) else { continue }
            opened = true
            let file = TableFileHandle(
                descriptor: descriptor, directory: directory, name: name, header: expected, layout: layout, isWritable: writable)
            if !alone {
                // Others have it open: share what they share (a reader too, so that its holds
                // count for the writers), or nothing is safe.
                do {
                    return try join(file, configuration: configuration, writerTimeout: options.writerTimeout)
                } catch is SharedTableState.NobodyShares where writable {
                    // Those who hold it keep their state to themselves (readers), or are being
                    // killed (their locks go one by one): wait, a little at least.
                    guard clock.now < max(deadline, start + dyingTimeout) else {
                        throw ImageCacheError(
                            .inUse, "the table is open in another process that does not share it (for reading only); close it first",
                            path: path, errno: .wouldBlock)
                    }
                    gate.release()
                    TableLockReleases.wait(after: releases, upTo: .milliseconds(10))
                    continue
                } catch is SharedTableState.NobodyShares {
                    // A reader, and nobody shares it: read the records, as a table of its own.
                } catch let error as ImageCacheError where error.code == .inUse && !writable {
                    // A reader that cannot use the shared state from here (read-only media).
                }
            }
            let loaded = try load(file, fileSize: Int(st.st_size), created: created, configuration: configuration, logger: logger)
            // Mapped files are not kept coherent between machines: on a network, cluster or FUSE
            // file system the table stays this process's alone (others get `.inUse`).
            guard alone, let kind = try? (loaded.state.file ?? file).fileSystemKind(), sharesAcrossProcesses(on: kind) else {
                return loaded
            }
            // Open to others from now on. A table rebuilt into a new file takes that file's gate
            // too, so that no opener finds it between its exclusive lock and its shared one.
            if let final = loaded.state.file, final.descriptor.rawValue != descriptor.rawValue {
                let finalGate = try TableOpenGate(final.descriptor, kind: .exclusive, timeout: gateTimeout, path: path)
                defer { finalGate.release() }
                _ = try final.descriptor.lock(.shared, wait: false, path: path)
            } else {
                _ = try descriptor.lock(.shared, wait: false, path: path)
            }
            return loaded
        }
        throw ImageCacheError(.inUse, "the table file kept being replaced while it was being opened", path: path)
    }

    /// The lock byte, on the table file itself, that serialises opening and closing: an
    /// open-file-description lock, far beyond the file's end, that the kernel releases when its
    /// holder dies.
    static let gateByte: Int64 = 1 << 60
    /// How long an opener or closer waits for another one at least (each holds the gate for
    /// the length of an open: milliseconds, or a rebuild's scan).
    static let gateTimeout = Duration.seconds(30)
    /// How long an opener waits, at least, for holders of the table that share nothing to go:
    /// a process being killed lets go of its locks one by one.
    static let dyingTimeout = Duration.seconds(2)

    /// Whether a table on a file system of `kind` is opened to other processes: only where the
    /// page cache is the truth about the file (a local file system), since every process then
    /// maps the same pages.
    static func sharesAcrossProcesses(on kind: FileSystemKind) -> Bool {
        kind.pageCacheIsTheTruth
    }

    /// Joins a table another process has open (this one holds a shared lock on it): its format
    /// must be this one's exactly, and its shared state, which that process made, is this
    /// process's too from now on (also when this one only reads: its holds must count for the
    /// writers). Nothing of the table is changed.
    ///
    /// - Throws: ``ImageCacheError`` `.formatConflict` naming each difference when the table was
    ///   made for another definition of the format; `.inUse` when it cannot be joined (damaged,
    ///   or kept to the other process); `.io`.
    private static func join(_ file: TableFileHandle, configuration: TableConfiguration, writerTimeout: Duration) throws -> Opened {
        var page = [UInt8](repeating: 0, count: TableHeader.readLength)
        let read = try page.withUnsafeMutableBytes { (b) throws in try file.descriptor.readAll(into: b, at: 0, path: file.path) }
        guard read == TableHeader.readLength, case .success(let (header, _)) = page.withUnsafeBytes({ TableHeader.decode($0) }) else {
            throw ImageCacheError(
                .inUse, "the table cannot be read and another process has it open; it is rebuilt when it is next opened alone",
                path: file.path)
        }
        guard header == file.header else {
            let differences = file.header.differences(fromTable: header).joined(separator: "; ")
            throw ImageCacheError(
                .formatConflict,
                "another process uses this table with another definition of its format (\(differences)); nothing was changed",
                path: file.path)
        }
        let st = try file.descriptor.status(path: file.path)
        let binding = SharedStateHeader.Binding(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), tableHeaderChecksum: file.header.formatChecksum)
        let shared = try SharedTableState.join(in: file.directory, tableName: file.name, table: file.layout, binding: binding)
        var state = TableState(layout: file.layout, pixelByteCount: configuration.pixelByteCount)
        state.file = file
        state.shared = shared
        // The chunks the shared state counts, as far as the file holds them: a chunk is allocated
        // in the file before it is counted, so a count beyond the file is damage, and the slots
        // this process uses are only ever those it has mapped.
        state.adoptChunks()
        // This process's holder index may have been a dead process's: what that one left is cleared.
        guard try shared.acquireWriterLock(timeout: writerTimeout) else {
            throw ImageCacheError(
                .inUse,
                "another process has been storing into the table for longer than \(writerTimeout) (stopped in the middle of a store?); try again later",
                path: file.path)
        }
        state.takeOverRegistration()
        shared.releaseWriterLock()
        return Opened(state: state, report: TableOpenReport(isReadOnly: !file.isWritable))
    }

    /// Checks the header of an open, locked file and loads its index, rebuilding when needed.
    private static func load(_ file: TableFileHandle, fileSize: Int, created: Bool, configuration: TableConfiguration, logger: Logger)
        throws -> Opened
    {
        var report = TableOpenReport(isReadOnly: !file.isWritable)
        if created {
            try file.initialize()
            return Opened(
                state: try TableState(layout: file.layout, pixelByteCount: configuration.pixelByteCount).withEmptyFile(
                    file, logger: logger), report: report)
        }
        if fileSize == 0 && !file.isWritable {
            throw ImageCacheError(.readOnly, "the table is empty and cannot be created read-only", path: file.path)
        }
        var page = [UInt8](repeating: 0, count: TableHeader.readLength)
        let read = try page.withUnsafeMutableBytes { (b) throws in try file.descriptor.readAll(into: b, at: 0, path: file.path) }
        var left: TableHeader.State?
        var rebuild: (reason: String, damaged: Bool)?
        if fileSize == 0 {
            // An empty file this call did not create (left by a crash before its header was
            // written, or not ours): replaced, never written into.
            rebuild = ("the file is empty", false)
        } else if read < TableHeader.readLength {
            rebuild = ("the file is \(fileSize) bytes, shorter than its header", true)
        } else {
            switch page.withUnsafeBytes({ TableHeader.decode($0) }) {
            case .failure(let why):
                rebuild = (why.reason, !why.isOwnTable)
            case .success(let (header, state)):
                left = state
                if header.pageSize != file.header.pageSize {
                    rebuild = ("it was written for \(header.pageSize)-byte pages, this system uses \(file.header.pageSize)", false)
                } else if header != file.header {
                    rebuild = ("the image format changed", false)
                }
            }
        }
        if let rebuild {
            guard file.isWritable else {
                throw ImageCacheError(
                    rebuild.damaged ? .io : .invalidConfiguration,
                    "the table cannot be read (\(rebuild.reason)) and, opened read-only, cannot be rebuilt", path: file.path)
            }
            if rebuild.damaged {
                logger.error("table file is damaged and is rebuilt empty: \(rebuild.reason)", metadata: ["path": "\(file.path)"])
            } else {
                logger.notice("table is rebuilt empty: \(rebuild.reason)", metadata: ["path": "\(file.path)"])
            }
            report.rebuildReason = rebuild.reason
            report.wasDamaged = rebuild.damaged
            let fresh = try replaceWithEmptyTable(file)
            return Opened(
                state: try TableState(layout: fresh.layout, pixelByteCount: configuration.pixelByteCount).withEmptyFile(
                    fresh, logger: logger), report: report)
        }
        let wasOpen = left?.wasOpen ?? false
        // Left open: its writer stopped without closing. Trusted as it is only when nothing but
        // that process can have been lost (see WriterSession); otherwise every entry is checked.
        let distrust = wasOpen ? left?.session.distrust(reopenedUnder: try file.session(), on: try file.fileSystemKind()) : nil
        if wasOpen { report.uncleanStop = distrust.map { .pageCacheMayBeLost(reason: $0) } ?? .processStopped }
        var state = TableState(layout: file.layout, pixelByteCount: configuration.pixelByteCount)
        state.file = file
        let loaded = try mapAndLoad(file, fileSize: fileSize, into: &state, checkEverything: distrust != nil, trustsInterruptions: wasOpen)
        state.shared = try file.buildSharedState(chunks: state.chunks.count, entries: loaded.entries, logger: logger)
        report.droppedEntries = loaded.damaged
        report.interruptedWrites = loaded.interrupted
        report.entriesToCheck = loaded.toCheck
        log(report, path: file.path, logger: logger)
        // The header names the session that may leave the table open next: written (durably,
        // after the records were marked) unless it already says exactly that.
        if file.isWritable && (!wasOpen || distrust != nil) { try file.writeHeader(open: true) }
        return Opened(state: state, report: report)
    }

    /// Logs what opening found: an ordinary stop without `close()` at `debug`; checks to come
    /// and dropped images at `notice`, with their counts; damage at `error`.
    private static func log(_ report: TableOpenReport, path: String, logger: Logger) {
        let metadata: Logger.Metadata = ["path": "\(path)"]
        if report.droppedEntries > 0 {
            logger.error("table lost \(report.droppedEntries) entries whose records or pixels were damaged or cut off", metadata: metadata)
        }
        switch report.uncleanStop {
        case .pageCacheMayBeLost(let reason)?:
            logger.notice(
                "table was not closed cleanly, and \(reason): each of its \(report.entriesToCheck) entries is checked before first use",
                metadata: metadata)
        case .processStopped?:
            var costs: [String] = []
            if report.interruptedWrites > 0 { costs.append("\(report.interruptedWrites) images being written were dropped") }
            if report.entriesToCheck > 0 {
                costs.append("\(report.entriesToCheck) entries left unchecked by an earlier unclean stop are checked before first use")
            }
            if !costs.isEmpty {
                logger.notice(
                    "table was not closed (its process stopped on this boot): \(costs.joined(separator: "; "))", metadata: metadata)
            } else {
                logger.debug(
                    "table was not closed (its process stopped on this boot); its entries are served as they are", metadata: metadata)
            }
        case nil:
            if report.entriesToCheck > 0 {
                logger.notice(
                    "\(report.entriesToCheck) entries left unchecked by an earlier unclean stop are checked before first use",
                    metadata: metadata)
            }
        }
    }

    /// What loading the records found.
    private struct Loaded {
        /// Records or slots that were damaged or cut off.
        var damaged = 0
        /// In-flight records of a stopped writer.
        var interrupted = 0
        /// Entries whose pixels must be checked before they are served.
        var toCheck = 0
        /// The committed entries, one per entity, for the shared state.
        var entries: [SharedTableState.Entry] = []
    }

    /// Maps every chunk the file has and loads their records. A chunk the file ends inside is
    /// completed (writable) or mapped as it is (read-only); entries whose slots the file does not
    /// wholly hold are dropped, the others kept. In-flight records are cleared: interruptions
    /// when `trustsInterruptions` (the table was left open), damage otherwise (a closed table has none). With
    /// `checkEverything`, every entry is marked, in its record, to be checked before first use.
    private static func mapAndLoad(
        _ file: TableFileHandle, fileSize: Int, into state: inout TableState, checkEverything: Bool, trustsInterruptions: Bool
    ) throws -> Loaded {
        let layout = file.layout
        var loaded = Loaded()
        /// The entry of each entity, and whether it must be checked before it is served.
        var found: [TableKey: (entry: SharedTableState.Entry, needsCheck: Bool)] = [:]
        for k in 0..<layout.maximumChunks {
            let start = layout.chunkOffset(k)
            guard start < fileSize else { break }
            guard start + layout.recordsLength <= fileSize else {
                loaded.damaged += countRecords(file, chunk: k, readableBytes: fileSize - start)
                break
            }
            let complete = start + layout.chunkByteCount(k) <= fileSize
            if !complete && file.isWritable {
                try file.descriptor.allocate(offset: start, length: layout.chunkByteCount(k), path: file.path)
            }
            let chunk = TableChunk(region: try file.mapChunk(k))
            let first = state.allocatedSlots
            state.addChunk(chunk, slots: layout.slotCount(ofChunk: k), loading: true)
            for slot in first..<state.allocatedSlots {
                let p = state.record(slot)
                guard let r = IndexRecord.read(at: p, slot: slot) else {
                    if UInt64(littleEndian: p.loadUnaligned(fromByteOffset: IndexRecord.checksumOffset, as: UInt64.self)) != 0 {
                        loaded.damaged += 1  // a damaged record
                        if file.isWritable { IndexRecord.clear(at: p) }
                    }
                    continue
                }
                if r.isInFlight {
                    // Pixels being written when the writer stopped: never an entry.
                    if trustsInterruptions { loaded.interrupted += 1 } else { loaded.damaged += 1 }
                    if file.isWritable { IndexRecord.clear(at: p) }
                    continue
                }
                guard layout.slotOffset(slot: slot) + layout.slotLength <= fileSize else {
                    loaded.damaged += 1  // its pixels were cut off
                    if file.isWritable { IndexRecord.clear(at: p) }
                    continue
                }
                // Two entries of one entity: a crash between a replacement's commit and the old
                // slot's release. The newer commit stays; the other record is cleared.
                if let other = found[r.entity] {
                    if other.entry.sequence > r.sequence {
                        if file.isWritable { IndexRecord.clear(at: p) }
                        continue
                    }
                    if file.isWritable { IndexRecord.clear(at: state.record(other.entry.slot)) }
                }
                let needsCheck = checkEverything || r.flags & IndexRecord.needsVerification != 0
                found[r.entity] = (
                    SharedTableState.Entry(slot: slot, entity: r.entity, sequence: r.sequence, lastAccess: IndexRecord.lastAccess(at: p)),
                    needsCheck
                )
            }
            if !complete { break }
        }
        for (entry, needsCheck) in found.values {
            loaded.entries.append(entry)
            guard needsCheck else { continue }
            loaded.toCheck += 1
            state.requireCheck(entry.slot)
            // Remember, in each record, that it must be checked: a later clean close (or a
            // later stop on this boot) must not make torn pixels look intact.
            if checkEverything && file.isWritable {
                _ = IndexRecord.rewriteFlags(IndexRecord.needsVerification, at: state.record(entry.slot), slot: entry.slot)
            }
        }
        return loaded
    }

    /// How many committed records the first `readableBytes` of chunk `k`'s records hold (for
    /// reporting what a cut-off chunk lost).
    private static func countRecords(_ file: TableFileHandle, chunk k: Int, readableBytes: Int) -> Int {
        let layout = file.layout
        let count = min(layout.slotCount(ofChunk: k), readableBytes / IndexRecord.length)
        guard count > 0 else { return 0 }
        var bytes = [UInt8](repeating: 0, count: count * IndexRecord.length)
        let read =
            (try? bytes.withUnsafeMutableBytes { (b) throws in
                try file.descriptor.readAll(into: b, at: layout.chunkOffset(k), path: file.path)
            }) ?? 0
        return bytes.withUnsafeBytes { b in
            (0..<(read / IndexRecord.length)).filter {
                IndexRecord.read(at: b.baseAddress! + $0 * IndexRecord.length, slot: layout.firstSlot(ofChunk: k) + $0) != nil
            }.count
        }
    }

    /// Writes an empty table into a new, unnamed file, locks it, and renames it over the old
    /// one, whose lock is held until then. The old file's bytes are never overwritten (another
    /// name of it, a hard link, keeps them).
    private static func replaceWithEmptyTable(_ old: TableFileHandle) throws -> TableFileHandle {
        let temporary = try old.directory.makeTemporaryFile(for: old.name)
        guard try temporary.descriptor.lock(.exclusive, wait: false, path: temporary.path) else {
            throw ImageCacheError(.inUse, "the new table file is locked by someone else", path: temporary.path)
        }
        let fresh = TableFileHandle(
            descriptor: temporary.takeDescriptor(), directory: old.directory, name: old.name, header: old.header, layout: old.layout,
            isWritable: true)
        try fresh.initialize()
        try temporary.commit()
        return fresh
    }
}

extension TableState {
    /// The state with the empty table `file` open.
    fileprivate func withEmptyFile(_ file: TableFileHandle, logger: Logger) throws -> TableState {
        var s = self
        s.file = file
        s.shared = try file.buildSharedState(chunks: 0, entries: [], logger: logger)
        return s
    }
}
