import FICCore

#if GIF
import CGif

/// Where giflib's reads come from: bytes held in memory, or a ``ByteChannel`` fed as a download
/// arrives (read on a decoder thread, which waits for the next chunk). Remembers whether a read
/// came up short, which is how a file cut short is told from damaged data.
final class GIFInput {
    private let bytes: UnsafeRawBufferPointer?
    private let channel: ByteChannel?
    /// Bytes handed to giflib so far: where the next read starts in the file.
    private(set) var offset = 0
    /// Whether a read found fewer bytes than giflib asked for: the data ended.
    private(set) var reachedEnd = false
    /// Why the channel stopped, when it was cancelled.
    private(set) var failure: ImageCacheError?

    /// Reads from `bytes`, which must outlive the reader.
    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        channel = nil
    }

    /// Reads from `channel`, waiting for its bytes.
    init(channel: ByteChannel) {
        bytes = nil
        self.channel = channel
    }

    /// Copies up to `count` bytes to `destination`: fewer only at the end of the data.
    func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        var done = 0
        if let bytes {
            done = max(0, min(count, bytes.count - offset))
            if done > 0 { destination.copyMemory(from: bytes.baseAddress! + offset, byteCount: done) }
        } else if let channel {
            do {
                while done < count {
                    let n = try channel.read(into: UnsafeMutableRawBufferPointer(start: destination + done, count: count - done))
                    if n == 0 { break }
                    done += n
                }
            } catch {
                failure = ImageCacheError.adopting(error)
            }
        }
        offset += done
        if done < count { reachedEnd = true }
        return done
    }
}

/// One giflib decoder (`GifFileType`), read record by record with the low-level API: the logical
/// screen at open, then extensions and image headers until the first frame, whose rows are read
/// with `DGifGetLine`. Image headers are read with `DGifGetImageHeader`, which, unlike
/// `DGifGetImageDesc`, keeps no per-frame record (`SavedImages`), so nothing grows with the frames
/// of an animation. giflib never prints; its errors are codes, mapped here.
final class GIFReader {
    let gif: UnsafeMutablePointer<GifFileType>
    let input: GIFInput

    /// What is known once a frame's header has been read.
    struct Frame {
        /// The logical screen.
        let screenWidth: Int, screenHeight: Int
        /// The frame's rectangle as stored (giflib does not check it against the screen).
        let left: Int, top: Int, width: Int, height: Int
        /// Whether its rows are stored in the four interlaced passes.
        let interlaced: Bool
        /// The palette index its graphic control extension makes transparent.
        let transparentIndex: Int?
        /// Its colours: the local palette, else the global one, else none, as (R, G, B) triples.
        let palette: [UInt8]
        /// What its graphic control extension says becomes of it before the next frame.
        var disposal: FrameDisposal = .none
    }

    /// Opens `input` and reads the logical screen descriptor.
    init(_ input: GIFInput) throws {
        self.input = input
        var error: Int32 = 0
        let opened = DGifOpen(
            Unmanaged.passUnretained(input).toOpaque(),
            { gif, buffer, count in
                guard let gif, let buffer, count > 0, let user = gif.pointee.UserData else { return 0 }
                let input = Unmanaged<GIFInput>.fromOpaque(user).takeUnretainedValue()
                return Int32(input.read(into: buffer, count: Int(count)))
            }, &error)
        guard let opened else {
            throw Self.error(code: error, input: input)
        }
        gif = opened
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(gif, &error)
    }

    /// Reads records up to the first image's header, so that its pixel data comes next.
    func readFirstFrame() throws -> Frame {
        guard let frame = try readFrame() else {
            throw ImageCacheError(.corruptData, "The GIF has no image: its trailer comes before any frame. The file is damaged.")
        }
        return frame
    }

    /// Reads records up to the next image's header, so that its pixel data comes next; nil at the
    /// trailer. A graphic control extension applies to the image after it only.
    func readFrame() throws -> Frame? {
        var transparentIndex: Int?
        var disposal = FrameDisposal.none
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) == GIF_OK else { throw failure() }
            switch type {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure() }
                if code == GRAPHICS_EXT_FUNC_CODE, let block {
                    var control = GraphicsControlBlock()
                    // The last graphic control before the image applies to it.
                    if DGifExtensionToGCB(Int(block[0]), block + 1, &control) == GIF_OK {
                        transparentIndex = control.TransparentColor >= 0 ? Int(control.TransparentColor) : nil
                        // Modes 4 to 7 are undefined; browsers keep such a frame, as for 0 and 1.
                        disposal =
                            switch control.DisposalMode {
                            case DISPOSE_BACKGROUND: .background
                            case DISPOSE_PREVIOUS: .previous
                            default: .none
                            }
                    }
                }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure() }
                }
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageHeader(gif) == GIF_OK else { throw failure() }
                let image = gif.pointee.Image
                let map = image.ColorMap ?? gif.pointee.SColorMap
                var palette: [UInt8] = []
                if let map, let colors = map.pointee.Colors {
                    for i in 0..<Int(max(0, min(map.pointee.ColorCount, 256))) {
                        palette += [colors[i].Red, colors[i].Green, colors[i].Blue]
                    }
                }
                return Frame(
                    screenWidth: Int(gif.pointee.SWidth), screenHeight: Int(gif.pointee.SHeight),
                    left: Int(image.Left), top: Int(image.Top), width: Int(image.Width), height: Int(image.Height),
                    interlaced: image.Interlace, transparentIndex: transparentIndex, palette: palette, disposal: disposal)
            case TERMINATE_RECORD_TYPE:
                return nil
            default:
                throw failure()
            }
        }
    }

    /// Skips the current image's data without decoding it (a frame of no pixels, or one wholly
    /// outside the canvas), so that the next record can be read.
    func skipImageData() throws {
        var size: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(gif, &size, &block) == GIF_OK else { throw failure() }
        while block != nil {
            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw failure() }
        }
    }

    /// Reads the next row of the frame's palette indices (`count` of them) into `line`.
    func readLine(_ line: UnsafeMutablePointer<UInt8>, count: Int) throws {
        guard DGifGetLine(gif, line, Int32(count)) == GIF_OK else { throw failure() }
    }

    /// The error for giflib's last failure: the data ended (the file was cut short), the channel
    /// was cancelled, or the data is damaged.
    func failure() -> ImageCacheError {
        Self.error(code: gif.pointee.Error, input: input)
    }

    private static func error(code: Int32, input: GIFInput) -> ImageCacheError {
        if let failure = input.failure { return failure }
        if input.reachedEnd {
            return ImageCacheError(
                .truncated, "The GIF data ends before its first frame does. The file was cut short; download or copy it again.")
        }
        let reason = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        switch code {
        case D_GIF_ERR_NOT_ENOUGH_MEM:
            return ImageCacheError(.overMemoryBudget, "Decoding the GIF ran out of memory (giflib: \(reason)).")
        case D_GIF_ERR_NOT_GIF_FILE:
            return ImageCacheError(.corruptData, "The data is not a GIF (giflib: \(reason)).")
        default:
            return ImageCacheError(.corruptData, "The GIF data is corrupt (giflib: \(reason)). Re-export the image.")
        }
    }
}
#endif
