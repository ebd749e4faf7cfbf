import FICCore

/// The row decoder of a library that pulls its input (libspng's stream reader, giflib): the
/// library runs on a decoder thread of its own and reads through a ``ByteChannel``, which hands it
/// whatever has arrived and makes it wait only when nothing has; its rows go to the sink from that
/// thread. Once it has decoded what it needs, later bytes are dropped unread.
final class PullingRowDecoder: RowDecoder {
    private struct Outcome {
        var failure: ImageCacheError?
        var completed = false
    }

    private let channel = ByteChannel()
    private let outcome = LockedBox(Outcome())
    private let thread: WorkerThread
    private let format: String
    private let endedEarly: String
    /// The first bytes, until `checkPrefix` has seen `prefixLength` of them.
    private var prefix: [UInt8]?
    private let prefixLength: Int
    private let checkPrefix: (([UInt8]) throws -> Void)?

    /// Starts the decoder thread, which runs `decode` (reading through the channel it is given,
    /// handing the header and the rows to `sink`). The caller does not use `sink` again until
    /// ``finish()`` or ``stop()`` has returned. `format` names the format in messages;
    /// `endedEarly` says what is missing when the input ends before `decode` has finished. With
    /// `checkPrefix`, the first `prefixLength` bytes are checked as they arrive, before the
    /// decoder has done anything with them (sizes that would need too much memory).
    init(
        sink: any RowSink, format: String, endedEarly: String, prefixLength: Int = 0, checkPrefix: (([UInt8]) throws -> Void)? = nil,
        decode: @escaping @Sendable (ByteChannel, any RowSink) throws -> Void
    ) throws {
        self.format = format
        self.endedEarly = endedEarly
        self.prefixLength = prefixLength
        self.checkPrefix = checkPrefix
        prefix = checkPrefix == nil ? nil : []
        let channel = self.channel, outcome = self.outcome
        let handed = HandedOver(value: sink)
        thread = try WorkerThread {
            do throws {
                try decode(channel, handed.value)
                outcome.withLockedValue { $0.completed = true }
                channel.stopReading()
            } catch {
                outcome.withLockedValue { $0.failure = ImageCacheError.adopting(error) }
                channel.cancel()
            }
        }
    }

    deinit {
        stop()
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if var head = prefix, let checkPrefix {
            head.append(contentsOf: bytes.prefix(prefixLength - head.count))
            prefix = head.count < prefixLength ? head : nil
            if head.count == prefixLength { try checkPrefix(head) }
        }
        if !channel.push(bytes) {
            thread.join()  // the decoder stopped on its own
            if let failure = outcome.withLockedValue({ $0.failure }) { throw failure }
            throw ImageCacheError(.corruptData, "the \(format) decoder stopped early")
        }
    }

    func finish() throws {
        channel.end()
        thread.join()  // the decoder reads what is left, then stops
        let outcome = self.outcome.withLockedValue { $0 }
        if let failure = outcome.failure { throw failure }
        guard outcome.completed else {
            throw ImageCacheError(.truncated, "the \(format) ended \(endedEarly); the download or file was cut short")
        }
    }

    /// Stops the decoder thread (it fails with `.cancelled` if it was still reading) and waits for it.
    func stop() {
        channel.cancel()
        thread.join()
    }
}
