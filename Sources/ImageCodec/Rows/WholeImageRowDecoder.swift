import FICCore

/// The row decoder of a format that cannot stream (WebP, and any format whose library decodes
/// only whole images): it keeps the bytes as they arrive, within
/// ``RowDecodingOptions/maximumBufferedBytes``, decodes the image whole with its format's decoder
/// when the input ends, and hands the rows to the sink.
final class WholeImageRowDecoder: RowDecoder {
    private let decoder: any ImageFormatDecoder.Type
    private let sink: any RowSink
    private let options: RowDecodingOptions
    private var bytes: ImageBytesBuilder?

    init(decoder: any ImageFormatDecoder.Type, sink: any RowSink, options: RowDecodingOptions) {
        self.decoder = decoder
        self.sink = sink
        self.options = options
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        let builder = try bytes ?? ImageBytesBuilder()
        bytes = builder
        guard builder.count + chunk.count <= options.maximumBufferedBytes else {
            throw ImageCacheError(
                .overMemoryBudget,
                "the image is over \(options.maximumBufferedBytes >> 20) MiB; \(decoder.format.name) images are decoded whole and cannot be that large"
            )
        }
        try builder.append(chunk)
    }

    /// Nothing runs on another thread.
    func stop() {}

    func finish() throws {
        guard let builder = bytes else {
            throw ImageCacheError(.emptyInput, "the input ended without any bytes; there is no image to decode")
        }
        bytes = nil
        let options = DecodingOptions(
            maximumPixelCount: self.options.maximumPixelCount, applyOrientation: false, allowCorruptData: self.options.allowCorruptData)
        let image = try builder.finish().withUnsafeBytes { try decoder.decode($0, options: options) }
        let info = image.source
        try sink.begin(
            SourceHeader(
                format: info.format, width: image.width, height: image.height, orientation: info.orientation,
                hasAlpha: image.pixelFormat == .bgra32Premultiplied))
        try image.withUnsafeBytes { raw in
            var row = 0
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
        }
    }
}
