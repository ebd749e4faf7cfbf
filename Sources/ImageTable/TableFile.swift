import FICCore
import Glibc
import SystemPackage
import Logging

/// Opens, validates, creates and rebuilds table files.
enum TableFile {
    /// Opens the table at `path`, creating it, or rebuilding it when it is not a valid table of
    /// this configuration (a changed format, a truncated or garbage file).
    static func open(path: String, configuration: TableConfiguration, lock: Lock, logger: Logger) throws -> TableStore {
        let expected = TableHeader(configuration: configuration)
        let fd = try SystemFile.open(path, flags: O_RDWR | O_CREAT)
        var fdOpen = true
        do {
            try SystemFile.lockExclusive(fd, path: path)
            let size = try SystemFile.size(fd, path: path)
            if size == 0 {
                try initialize(fd: fd, header: expected, path: path)
                let store = try makeStore(lock: lock, path: path, fd: fd, header: expected, fileSize: expected.dataOffset, wasOpen: false, logger: logger)
                fdOpen = false
                return store
            }
            var page = [UInt8](repeating: 0, count: TableHeader.length)
            let read = try page.withUnsafeMutableBytes { try SystemFile.pread(fd, into: $0, offset: 0, path: path) }
            var reason: String?
            var wasOpen = false
            if read < TableHeader.length {
                reason = "the file is truncated (\(size) bytes, shorter than its header)"
            } else {
                switch page.withUnsafeBytes({ TableHeader.decode($0) }) {
                case .failure(let failure):
                    reason = failure.reason
                case .success(let (header, open)):
                    wasOpen = open
                    if header != expected {
                        logger.notice("the image format changed; its table is discarded and rebuilt", metadata: ["path": "\(path)"])
                        reason = ""
                    } else if size < header.dataOffset {
                        reason = "the file is truncated (\(size) bytes, its index needs \(header.dataOffset))"
                    }
                }
            }
            if let reason {
                if !reason.isEmpty {
                    logger.error("table file is damaged and is rebuilt empty: \(reason)", metadata: ["path": "\(path)"])
                }
                Glibc.close(fd)
                fdOpen = false
                return try rebuild(path: path, configuration: configuration, lock: lock, logger: logger)
            }
            if wasOpen {
                logger.notice("table was not closed cleanly; each entry's pixels are verified on first use", metadata: ["path": "\(path)"])
            }
            try markOpen(fd: fd, header: expected, path: path)
            let store = try makeStore(lock: lock, path: path, fd: fd, header: expected, fileSize: size, wasOpen: wasOpen, logger: logger)
            fdOpen = false
            return store
        } catch {
            if fdOpen { Glibc.close(fd) }
            throw error
        }
    }

    /// Maps the index and every whole chunk of slots in the file, then hands `fd` to a store.
    /// A partial last chunk (a crash while growing, or a file truncated from outside) is left
    /// unmapped; its slots are regrown later.
    private static func makeStore(lock: Lock, path: String, fd: Int32, header: TableHeader, fileSize: Int, wasOpen: Bool, logger: Logger) throws -> TableStore {
        let index = try MappedRegion(descriptor: FileDescriptor(rawValue: fd), offset: header.indexOffset, length: header.dataOffset - header.indexOffset, writable: true, path: path)
        var chunks: [MappedRegion] = []
        var slots = 0
        while slots < header.maximumCount {
            let count = min(header.slotsPerChunk, header.maximumCount - slots)
            guard header.dataOffset + (slots + count) * header.slotLength <= fileSize else { break }
            chunks.append(try MappedRegion(descriptor: FileDescriptor(rawValue: fd), offset: header.dataOffset + slots * header.slotLength, length: count * header.slotLength, writable: true, path: path))
            slots += count
        }
        return TableStore(lock: lock, path: path, fd: fd, header: header, index: index, chunks: chunks, wasOpen: wasOpen, logger: logger)
    }

    /// Reserves and maps the next chunk of slots, starting at slot `first`.
    static func growChunk(store: TableStore, first: Int) throws -> (MappedRegion, Int) {
        let h = store.header
        let count = min(h.slotsPerChunk, h.maximumCount - first)
        let offset = h.dataOffset + first * h.slotLength
        try SystemFile.allocate(store.fd, offset: offset, length: count * h.slotLength, path: store.path)
        return (try MappedRegion(descriptor: FileDescriptor(rawValue: store.fd), offset: offset, length: count * h.slotLength, writable: true, path: store.path), count)
    }

    /// Writes a fresh, empty table to a temporary file and renames it over `path`. Memory mapped
    /// from the previous file stays valid for whoever still holds it.
    static func rebuild(path: String, configuration: TableConfiguration, lock: Lock, logger: Logger) throws -> TableStore {
        let header = TableHeader(configuration: configuration)
        let temporary = path + ".new-\(getpid())"
        let fd = try SystemFile.open(temporary, flags: O_RDWR | O_CREAT | O_TRUNC)
        let store: TableStore
        do {
            try SystemFile.lockExclusive(fd, path: temporary)
            try initialize(fd: fd, header: header, path: temporary)
            store = try makeStore(lock: lock, path: path, fd: fd, header: header, fileSize: header.dataOffset, wasOpen: false, logger: logger)
        } catch {
            Glibc.close(fd)
            unlink(temporary)
            throw error
        }
        do {
            try SystemFile.rename(temporary, path)
        } catch {
            unlink(temporary)
            throw error // the store owns fd and closes it
        }
        SystemFile.syncDirectory(of: path)
        return store
    }

    private static func initialize(fd: Int32, header: TableHeader, path: String) throws {
        try SystemFile.truncate(fd, to: 0, path: path)
        try SystemFile.allocate(fd, offset: 0, length: header.dataOffset, path: path)
        try markOpen(fd: fd, header: header, path: path)
    }

    /// Records that the file is open for writing, durably, before any entry changes.
    private static func markOpen(fd: Int32, header: TableHeader, path: String) throws {
        let page = header.encode(open: true)
        try page.withUnsafeBytes { try SystemFile.pwrite(fd, $0, offset: 0, path: path) }
        try SystemFile.sync(fd, path: path)
    }
}
