#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif
import FICCore
import Glibc
import ImageCodec
import SystemPackage

extension TilePyramidBuilder {
    /// The chunk size used when reading files.
    static let fileChunkBytes = 1 << 20

    /// Builds a pyramid from the image file at `path` (see ``build(contentsOf:progress:)``).
    public static func build(contentsOf path: String, destination: TilePyramidDestination, options: TilePyramidOptions = .init()) throws
        -> TilePyramid
    {
        try TilePyramidBuilder(destination: destination, options: options).build(contentsOf: path)
    }

    /// Feeds this builder the image file at `path` and returns the finished pyramid. A format whose
    /// files are best read in any order (TIFF, whose directory usually comes last) is decoded
    /// where the file lies, a band at a time; others are read in 1 MiB chunks, as a download
    /// arrives. `progress` learns the bytes read (for the first kind, the whole file at once,
    /// before decoding). Meanwhile other threads may read the rows of tiles already written.
    public func build(contentsOf path: String, progress: ((Int) -> Void)? = nil) throws -> TilePyramid {
        let fd: FileDescriptor
        do {
            fd = try ImageFile.open(path: path).descriptor
        } catch {
            let failure = ImageCacheError.adopting(error)
            abandon(failure)
            throw failure
        }
        defer { fd.closeQuietly() }
        do {
            if let (decoder, offset, size) = try Self.randomAccessFormat(of: fd, path: path) {
                progress?(size)
                try decode(file: fd, size: size, decoder: decoder, offset: offset)
                return try finish()
            }
        } catch {
            let failure = ImageCacheError.adopting(error)
            abandon(failure)
            throw failure.adding(path: path)
        }
        var chunk = [UInt8](repeating: 0, count: Self.fileChunkBytes)
        while true {
            let count: Int
            do {
                // Full chunks until the end of the file, whatever the reads return on the way.
                count = try chunk.withUnsafeMutableBytes { try fd.readAll(into: $0, path: path) }
            } catch {
                let failure = ImageCacheError.adopting(error)
                abandon(failure)
                throw failure
            }
            if count == 0 { break }
            try append(count == chunk.count ? chunk : Array(chunk[0..<count]))
            progress?(count)
        }
        do {
            return try finish()
        } catch {
            throw ImageCacheError.adopting(error).adding(path: path)
        }
    }

    /// The decoder of the file's format, where its data starts and the file's size, when that
    /// format reads files in any order; nil for the others (and for bytes of no known format,
    /// which the chunked path reports as it always has).
    private static func randomAccessFormat(of file: FileDescriptor, path: String) throws -> (any ImageFormatDecoder.Type, Int, Int)? {
        let size = Int(try file.status(path: path).st_size)
        var prefix = [UInt8](repeating: 0, count: min(size, 4096))
        let count = try prefix.withUnsafeMutableBytes { try file.readAll(into: $0, at: 0, path: path) }
        let found = try? prefix[0..<count].withUnsafeBytes { try ImageFormats.sniff($0, final: count == size) }
        guard let (decoder, offset) = found ?? nil, decoder.capabilities.readsFilesInAnyOrder else { return nil }
        return (decoder, offset, size)
    }

    /// Builds a pyramid from a stream of byte chunks (for example a download's body), failing
    /// with `.stalled` when no chunk arrives for `options.stallTimeout`, and with `.interrupted`
    /// when the stream throws (a reset connection). The stream must end its iteration when its
    /// task is cancelled (as `AsyncStream` and HTTP client bodies do).
    public static func build<Chunks: AsyncSequence & Sendable>(
        from chunks: Chunks, destination: TilePyramidDestination, options: TilePyramidOptions = .init()
    ) async throws -> TilePyramid where Chunks.Element: ContiguousBytes {
        try await TilePyramidBuilder(destination: destination, options: options).build(from: chunks)
    }

    /// Feeds this builder every chunk of `chunks` and returns the finished pyramid, as
    /// ``build(from:destination:options:)`` does (stall watch and all); meanwhile other threads
    /// may read the rows of tiles already written (``readTile(level:column:row:into:)``).
    public func build<Chunks: AsyncSequence & Sendable>(from chunks: Chunks) async throws -> TilePyramid
    where Chunks.Element: ContiguousBytes {
        try await consume(chunks, stallTimeout: options.stallTimeout) { chunk, builder throws in
            try builder.append(chunk)
        }
        return try finish()
    }

    /// Feeds every chunk of `chunks` through `append`, watching for stalls; on any failure the
    /// build is abandoned and the error thrown.
    func consume<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, stallTimeout: Duration,
        append: @escaping @Sendable (Chunks.Element, TilePyramidBuilder) throws -> Void
    ) async throws {
        let builder = self
        do {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    do {
                        for try await chunk in chunks {
                            try Task.checkCancellation()
                            try append(chunk, builder)
                        }
                    } catch let error as ImageCacheError {
                        throw error
                    } catch is CancellationError {
                        return false
                    } catch {
                        throw ImageCacheError(.interrupted, "the input stream failed before the image was complete", underlying: error)
                    }
                    return true
                }
                group.addTask {
                    let step = min(stallTimeout / 4, .milliseconds(250))
                    while true {
                        try await Task.sleep(for: step)
                        let idle = ContinuousClock.now - builder.lastActivity
                        if idle > stallTimeout {
                            throw ImageCacheError(.stalled, "the input delivered nothing for \(idle); the download stalled, try again")
                        }
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
            if Task.isCancelled { throw ImageCacheError(.cancelled, "the pyramid build was cancelled") }
        } catch let error as ImageCacheError {
            abandon(error)
            throw error
        } catch {
            let wrapped = ImageCacheError(.interrupted, "the input stream failed", underlying: error)
            abandon(wrapped)
            throw wrapped
        }
    }
}
