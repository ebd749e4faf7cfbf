import CSpng
import FICCore
import ImageCodec

/// Decodes a non-interlaced PNG row by row while its bytes arrive: libspng's progressive API
/// pulls bytes through a callback on a decoder thread, which waits for chunks in a
/// ``ByteChannel``. Only one row of PNG samples and the sink's batches are in memory, whatever
/// the image size.
final class PNGRowSource: RowSource, @unchecked Sendable {
    private let channel = ByteChannel()
    private let sink: RowSink
    private let maximumPixelCount: Int
    private let allowCorruptData: Bool
    private var thread: WorkerThread?
    private let failure = LockedBox<ImageCacheError?>(nil)
    private let completed = LockedBox(false)

    init(sink: RowSink, maximumPixelCount: Int, allowCorruptData: Bool) throws {
        self.sink = sink
        self.maximumPixelCount = maximumPixelCount
        self.allowCorruptData = allowCorruptData
        thread = try WorkerThread { [self] in
            do throws {
                try self.decode()
                self.completed.withLockedValue { $0 = true }
                self.channel.stopReading()
            } catch {
                self.failure.withLockedValue { $0 = ImageCacheError.adopting(error) }
                self.channel.cancel()
            }
        }
    }

    deinit {
        channel.cancel()
        thread?.join()
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if !channel.push(bytes) {
            try stop()
            throw ImageCacheError(.corruptData, "the PNG decoder stopped early")
        }
    }

    func finish() throws {
        channel.end()
        try stop()
        guard completed.withLockedValue({ $0 }) else {
            throw ImageCacheError(.truncated, "the PNG ended before its last row; the download or file was cut short")
        }
    }

    private func stop() throws {
        thread?.join()
        thread = nil
        if let error = failure.withLockedValue({ $0 }) { throw error }
    }

    /// Runs on the decoder thread.
    private func decode() throws {
        guard let context = spng_ctx_new(0) else {
            throw ImageCacheError(.overMemoryBudget, "could not allocate a PNG decoder: out of memory")
        }
        defer { spng_ctx_free(context) }
        let ancillary = allowCorruptData ? Int32(SPNG_CRC_DISCARD.rawValue) : Int32(SPNG_CRC_ERROR.rawValue)
        try Self.check(spng_set_crc_action(context, Int32(SPNG_CRC_ERROR.rawValue), ancillary))
        try Self.check(spng_set_image_limits(context, UInt32(PyramidGeometry.maximumSide), UInt32(PyramidGeometry.maximumSide)))
        try Self.check(spng_set_chunk_limits(context, 64 << 20, 64 << 20))
        let user = Unmanaged.passUnretained(channel).toOpaque()
        try Self.check(spng_set_png_stream(context, { _, user, destination, length in
            let channel = Unmanaged<ByteChannel>.fromOpaque(user!).takeUnretainedValue()
            let ok = channel.read(into: UnsafeMutableRawBufferPointer(start: destination, count: length))
            return ok ? 0 : SPNG_IO_EOF.rawValue
        }, user))
        var ihdr = spng_ihdr()
        try Self.check(spng_get_ihdr(context, &ihdr))
        let width = Int(ihdr.width), height = Int(ihdr.height)
        let pixels = width.multipliedReportingOverflow(by: height)
        guard !pixels.overflow, pixels.partialValue <= maximumPixelCount else {
            throw ImageCacheError(.dimensionsTooLarge, "the PNG is \(width)×\(height) pixels, over the limit of \(maximumPixelCount); refused before decoding")
        }
        guard ihdr.interlace_method == 0 else {
            throw ImageCacheError(.unsupportedFormat, "interlaced PNGs cannot be decoded row by row")
        }
        let flags = Int32(SPNG_DECODE_TRNS.rawValue) | Int32(SPNG_DECODE_PROGRESSIVE.rawValue)
        try Self.check(spng_decode_image(context, nil, 0, Int32(SPNG_FMT_RGBA8.rawValue), flags))
        var trns = spng_trns()
        let colorType = Int(ihdr.color_type)
        let hasAlpha = colorType == Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue)
            || colorType == Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue)
            || spng_get_trns(context, &trns) == 0
        var orientation = ImageOrientation.up
        var exif = spng_exif()
        if spng_get_exif(context, &exif) == 0, let data = exif.data {
            orientation = EXIFOrientation.parse(UnsafeRawBufferPointer(start: data, count: exif.length))
        }
        try sink.begin(SourceHeader(format: .png, width: width, height: height, orientation: orientation, hasAlpha: hasAlpha))
        var row = 0
        while row < height {
            let batch = try sink.acquireBatch()
            while batch.count < batch.capacity && row < height {
                let target = batch.row(batch.count)
                let rc = spng_decode_row(context, target, width * 4)
                guard rc == 0 || rc == Int32(SPNG_EOI.rawValue) else { try Self.check(rc); break }
                RGBAConversion.toBGRA(target, count: width, premultiply: hasAlpha)
                batch.count += 1
                row += 1
                if rc == Int32(SPNG_EOI.rawValue) && row < height {
                    throw ImageCacheError(.corruptData, "the PNG's image data ended after \(row) of \(height) rows")
                }
            }
            try sink.submit(batch)
        }
        if !allowCorruptData {
            try Self.check(spng_decode_chunks(context))  // the chunks after the image data, up to IEND
        }
    }

    /// Throws the ``ImageCacheError`` for an spng result other than 0.
    static func check(_ code: Int32) throws {
        guard code != 0 else { return }
        let quoted = "libspng: “\(String(cString: spng_strerror(code)))”"
        switch code {
        case SPNG_IO_EOF.rawValue, SPNG_IO_ERROR.rawValue, Int32(SPNG_EOF.rawValue), Int32(SPNG_EIDAT_TOO_SHORT.rawValue):
            throw ImageCacheError(.truncated, "the PNG data ends before the image does (\(quoted)); the download or file was cut short")
        case Int32(SPNG_EUSER_WIDTH.rawValue), Int32(SPNG_EUSER_HEIGHT.rawValue), Int32(SPNG_EOVERFLOW.rawValue):
            throw ImageCacheError(.dimensionsTooLarge, "the PNG is larger than can be tiled (\(quoted)); refused before decoding")
        case Int32(SPNG_EMEM.rawValue), Int32(SPNG_ECHUNK_LIMITS.rawValue):
            throw ImageCacheError(.overMemoryBudget, "decoding the PNG needs more memory than allowed (\(quoted))")
        case Int32(SPNG_ESIGNATURE.rawValue):
            throw ImageCacheError(.unsupportedFormat, "the data is not a PNG (\(quoted))")
        default:
            throw ImageCacheError(.corruptData, "the PNG data is corrupt (\(quoted)); re-export the image")
        }
    }
}

/// RGBA8 rows to BGRA, premultiplied or opaque.
enum RGBAConversion {
    /// Rewrites `count` RGBA pixels at `pixels` in place as BGRA (premultiplied with
    /// `(c × a + 127) / 255`), or as BGRX with X = 255 when not `premultiply`.
    static func toBGRA(_ pixels: UnsafeMutableRawPointer, count: Int, premultiply: Bool) {
        let p = pixels.assumingMemoryBound(to: UInt8.self)
        for i in 0..<count {
            let q = p + i * 4
            let r = UInt32(q[0]), g = UInt32(q[1]), b = UInt32(q[2])
            if premultiply {
                let a = UInt32(q[3])
                q[0] = UInt8(truncatingIfNeeded: (b &* a &+ 127) / 255)
                q[1] = UInt8(truncatingIfNeeded: (g &* a &+ 127) / 255)
                q[2] = UInt8(truncatingIfNeeded: (r &* a &+ 127) / 255)
            } else {
                q[0] = UInt8(truncatingIfNeeded: b)
                q[2] = UInt8(truncatingIfNeeded: r)
                q[3] = 255
            }
        }
    }
}

/// Keeps every byte and decodes the image whole when the input ends: WebP (at most 16383 × 16383)
/// and interlaced PNG, whose rows are not final until the last pass.
final class WholeImageSource: RowSource {
    private var bytes: [UInt8] = []
    private let sink: RowSink
    private let maximumPixelCount: Int
    private let allowCorruptData: Bool
    /// The most input kept in memory.
    static let maximumInputBytes = 512 << 20

    init(sink: RowSink, maximumPixelCount: Int, allowCorruptData: Bool) {
        self.sink = sink
        self.maximumPixelCount = maximumPixelCount
        self.allowCorruptData = allowCorruptData
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        guard bytes.count + chunk.count <= Self.maximumInputBytes else {
            throw ImageCacheError(.overMemoryBudget, "the image is over \(Self.maximumInputBytes >> 20) MiB; WebP and interlaced PNG are decoded whole and cannot be that large")
        }
        bytes.append(contentsOf: chunk)
    }

    func finish() throws {
        let image: DecodedImage
        do {
            image = try ImageDecoder.decode(bytes, options: DecodingOptions(
                maximumPixelCount: maximumPixelCount, applyOrientation: false, allowCorruptData: allowCorruptData))
        } catch let error as ImageCacheError {
            throw error
        } catch {
            throw ImageCacheError(.decodingFailed, "the image could not be decoded", underlying: error)
        }
        bytes = []
        let info = image.source
        try sink.begin(SourceHeader(format: info.format, width: image.width, height: image.height, orientation: info.orientation, hasAlpha: image.pixelFormat == .bgra32Premultiplied))
        var row = 0
        try typed { try image.withUnsafeBytes { raw in
            while row < image.height {
                let batch = try sink.acquireBatch()
                let n = min(batch.capacity, image.height - row)
                for i in 0..<n {
                    batch.row(i).copyMemory(from: raw.baseAddress! + (row + i) * image.bytesPerRow, byteCount: image.width * 4)
                }
                batch.count = n
                row += n
                try sink.submit(batch)
            }
        } }
    }
}
