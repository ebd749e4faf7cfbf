import FICCore
import SystemPackage

#if TIFF
import CTIFFSupport
import CTIFF

/// One TIFF opened with libtiff, from memory (strips read in place) or from a file descriptor
/// (read with `pread`, so a file of any size is read where it lies and never held). libtiff's
/// messages are collected by the handle (it never prints); failures become ``ImageCacheError``s
/// that name what is wrong.
///
/// Not thread-safe: one decode at a time.
final class TIFFFile {
    /// The most libtiff may allocate at once for a directory's own arrays and tags (strip offsets,
    /// an ICC profile). Far above any real profile: when a tag's value is over it, libtiff drops
    /// the tag without a word.
    static let maximumSingleAllocation: UInt64 = 256 << 20
    /// The most directories walked to count pages and find reduced-resolution levels.
    static let maximumDirectoriesWalked = 256
    /// The most SubIFDs looked at.
    static let maximumSubIFDs = 32

    private let handle: OpaquePointer
    /// libtiff's handle.
    let tiff: OpaquePointer
    /// Bytes in the file.
    let size: Int
    /// The bytes, when the file is in memory (they outlive the handle: the caller's).
    private let bytes: UnsafeRawBufferPointer?
    /// The descriptor, when it is read from a file (owned by the caller).
    private let descriptor: FileDescriptor?

    /// Opens a TIFF held in memory; `bytes` must outlive the file.
    convenience init(bytes: UnsafeRawBufferPointer) throws {
        try self.init(bytes: bytes, descriptor: nil, size: bytes.count)
    }

    /// Opens the TIFF in `file` (the first `size` bytes), which must stay open while this is used.
    convenience init(file: FileDescriptor, size: Int) throws {
        try self.init(bytes: nil, descriptor: file, size: size)
    }

    private init(bytes: UnsafeRawBufferPointer?, descriptor: FileDescriptor?, size: Int) throws {
        self.bytes = bytes
        self.descriptor = descriptor
        self.size = size
        guard size > 0 else { throw ImageCacheError(.emptyInput, "The input is empty (0 bytes); there is no image to decode.") }
        guard let made = fic_tiff_open(bytes?.baseAddress, descriptor?.rawValue ?? -1, UInt64(size), Self.maximumSingleAllocation) else {
            throw ImageCacheError(.overMemoryBudget, "There is no memory to open the TIFF.")
        }
        guard fic_tiff_is_open(made) != 0, let tiff = fic_tiff_handle(made) else {
            let error = Self.openFailure(made, header: try Self.header(bytes: bytes, descriptor: descriptor, size: size), size: size)
            fic_tiff_close(made)
            throw error
        }
        handle = made
        self.tiff = tiff
    }

    deinit {
        fic_tiff_close(handle)
    }

    // MARK: Messages

    /// Errors libtiff reported since the messages were last cleared.
    var errorCount: Int { Int(fic_tiff_error_count(handle)) }
    /// Warnings libtiff reported since then.
    var warningCount: Int { Int(fic_tiff_warning_count(handle)) }
    /// The first error since then ("" when none).
    var firstError: String { String(cString: fic_tiff_error_message(handle)) }
    /// The first warning since then ("" when none).
    var firstWarning: String { String(cString: fic_tiff_warning_message(handle)) }
    /// The error for a failed read of the file since then (libtiff's client I/O keeps the
    /// `errno`), or nil.
    var readFailure: ImageCacheError? { Self.readFailure(handle) }

    /// The error for a failed read of the file through `handle`'s client I/O, or nil.
    private static func readFailure(_ handle: OpaquePointer) -> ImageCacheError? {
        let e = fic_tiff_io_errno(handle)
        guard e != 0 else { return nil }
        let errno = Errno(rawValue: e)
        return ImageCacheError(.io, "Reading the TIFF failed: \(ImageCacheError.reason(errno)).", errno: errno)
    }

    /// Forgets the messages so far.
    func clearMessages() {
        fic_tiff_clear_messages(handle)
    }

    // MARK: Directories

    /// The facts of the current directory.
    func readDirectory() -> fic_tiff_directory {
        var directory = fic_tiff_directory()
        fic_tiff_read_directory(handle, &directory)
        return directory
    }

    /// Makes directory `index` of the main chain current.
    func select(directory index: Int) throws {
        clearMessages()
        guard fic_tiff_set_directory(handle, UInt32(index)) != 0 else {
            throw ImageCacheError(
                .corruptData, "The TIFF's directory \(index) cannot be read (libtiff: \(describe(firstError))). The file is damaged.")
        }
    }

    /// Makes the SubIFD at `offset` current.
    func select(subIFD offset: UInt64) throws {
        clearMessages()
        guard fic_tiff_set_subdirectory(handle, offset) != 0 else {
            throw ImageCacheError(
                .corruptData, "The TIFF's SubIFD at byte \(offset) cannot be read (libtiff: \(describe(firstError))). The file is damaged.")
        }
    }

    /// The offsets of the current directory's SubIFDs (at most ``maximumSubIFDs``).
    func subIFDOffsets() -> [UInt64] {
        var offsets = [UInt64](repeating: 0, count: Self.maximumSubIFDs)
        let count = Int(fic_tiff_subifd_offsets(handle, &offsets, Int32(offsets.count)))
        return Array(offsets.prefix(min(max(count, 0), offsets.count)))
    }

    /// Reads the next directory of the main chain; false at its end (or where it is damaged).
    func readNextDirectory() -> Bool {
        TIFFReadDirectory(tiff) != 0
    }

    /// The number of directories of the main chain (libtiff reads only their entry counts and links).
    func directoryCount() -> Int {
        Int(TIFFNumberOfDirectories(tiff))
    }

    /// Where strip or tile `index` lies.
    enum ChunkPlace {
        /// Within the file (or libtiff decides: a count of 0 at a real offset).
        case inFile
        /// At offset 0, where the file's header is: no data. libtiff pads an offsets tag of the
        /// wrong count with zeros, and GDAL writes empty tiles of sparse files so.
        case missing
        /// Past the end of the file: it was cut short.
        case pastEnd
    }

    /// Where the byte range of strip or tile `index` lies.
    func place(ofChunk index: UInt32) -> ChunkPlace {
        let offset = TIFFGetStrileOffset(tiff, index), count = TIFFGetStrileByteCount(tiff, index)
        guard offset > 0 else { return .missing }
        let (end, overflow) = offset.addingReportingOverflow(count)
        return !overflow && end <= UInt64(size) ? .inFile : .pastEnd
    }

    /// Starts libtiff's RGBA reader on the current directory (rows in the stored orientation), or
    /// throws libtiff's reason why it cannot read it.
    func beginRGBA() throws -> OpaquePointer {
        var message = [CChar](repeating: 0, count: 1024)
        clearMessages()
        guard let reader = fic_tiff_rgba_begin(handle, &message) else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageCacheError(
                .unsupportedFormat,
                "The TIFF stores its pixels in a way that is not decoded (libtiff: \(describe(reason))). Convert it to 8-bit RGB.")
        }
        return reader
    }

    /// libtiff's message for people: "" becomes "no reason given".
    func describe(_ message: String) -> String {
        message.isEmpty ? "no reason given" : message
    }

    // MARK: Why opening failed

    /// The facts of the file's header that tell a file cut short from a damaged one.
    struct Header {
        /// Whether it is a BigTIFF.
        var big: Bool
        /// Where the first directory is, or nil when the header is incomplete.
        var firstDirectory: UInt64?
        /// Whether that directory (its entry count, entries, link and the values stored apart from
        /// its entries) lies within the file.
        var directoryFits: Bool
    }

    /// Reads the header and the first directory's entry count from the bytes or the file.
    private static func header(bytes: UnsafeRawBufferPointer?, descriptor: FileDescriptor?, size: Int) throws -> Header {
        func read(_ offset: UInt64, _ count: Int) throws -> [UInt8]? {
            guard offset <= UInt64(Int.max - count), Int(offset) + count <= size else { return nil }
            if let bytes { return Array(bytes[Int(offset)..<(Int(offset) + count)]) }
            var out = [UInt8](repeating: 0, count: count)
            let got = try out.withUnsafeMutableBytes { try descriptor!.readAll(into: $0, at: Int(offset), path: nil) }
            return got == count ? out : nil
        }
        guard let start = try read(0, 8) else { return Header(big: false, firstDirectory: nil, directoryFits: false) }
        let little = start[0] == 0x49
        func integer(_ bytes: [UInt8]) -> UInt64 {
            (little ? bytes.reversed() : bytes).reduce(0) { $0 << 8 | UInt64($1) }
        }
        let big = integer(Array(start[2..<4])) == 43
        let first: UInt64
        if big {
            guard let field = try read(8, 8) else { return Header(big: true, firstDirectory: nil, directoryFits: false) }
            first = integer(field)
        } else {
            first = integer(Array(start[4..<8]))
        }
        let countBytes = big ? 8 : 2, entryBytes = big ? 20 : 12, linkBytes = big ? 8 : 4
        guard let countField = try read(first, countBytes) else { return Header(big: big, firstDirectory: first, directoryFits: false) }
        let entries = integer(countField)
        let (length, overflow) = entries.multipliedReportingOverflow(by: UInt64(entryBytes))
        let end = overflow ? UInt64.max : first &+ UInt64(countBytes) &+ length &+ UInt64(linkBytes)
        guard !overflow, end >= first, end <= UInt64(size), let table = try read(first + UInt64(countBytes), Int(length)) else {
            return Header(big: big, firstDirectory: first, directoryFits: false)
        }
        // Values too long for their entry lie elsewhere (writers put them after the directory):
        // one past the end also means the file was cut short.
        let typeSizes: [UInt64] = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8]
        for index in 0..<Int(entries) {
            let entry = Array(table[(index * entryBytes)..<((index + 1) * entryBytes)])
            let type = Int(integer(Array(entry[2..<4])))
            let count = integer(Array(entry[4..<(big ? 12 : 8)]))
            let (bytes, tooMany) = count.multipliedReportingOverflow(by: type < typeSizes.count ? typeSizes[type] : 0)
            guard !tooMany else { continue }
            if bytes > UInt64(big ? 8 : 4) {
                let offset = integer(Array(entry[(big ? 12 : 8)...]))
                let (valueEnd, past) = offset.addingReportingOverflow(bytes)
                if !past && valueEnd > UInt64(size) {
                    return Header(big: big, firstDirectory: first, directoryFits: false)
                }
            }
        }
        return Header(big: big, firstDirectory: first, directoryFits: true)
    }

    /// The error for a file libtiff could not open.
    private static func openFailure(_ handle: OpaquePointer, header: Header, size: Int) -> ImageCacheError {
        let message = String(cString: fic_tiff_error_message(handle))
        let reason = message.isEmpty ? "" : " (libtiff: \(message))"
        if let failure = readFailure(handle) { return failure }
        guard let first = header.firstDirectory else {
            return ImageCacheError(.truncated, "The input is only \(size) bytes, the start of a TIFF file; the file was cut short.")
        }
        if first == 0 {
            return ImageCacheError(.corruptData, "The TIFF has no directory (its header points to byte 0)\(reason). The file is damaged.")
        }
        if !header.directoryFits {
            return ImageCacheError(
                .truncated,
                "The TIFF file ends before its directory does (it starts at byte \(first) of a file of \(size) bytes)\(reason): the file was cut short; download or copy it again."
            )
        }
        if message.lowercased().contains("memory") {
            return ImageCacheError(
                .overMemoryBudget, "The TIFF's directory asks for more memory than allowed\(reason); the file is damaged or hostile.")
        }
        return ImageCacheError(.corruptData, "The TIFF's directory cannot be read\(reason). The file is damaged.")
    }
}
#endif
