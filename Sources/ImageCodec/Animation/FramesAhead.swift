import FICCore

/// An animation's frames decoded one step ahead on a thread of their own: while the caller
/// draws and stores frame *n*, frame *n + 1* is being decoded and composited, so a long
/// animation takes about as long as the slower of the two instead of their sum. At most
/// ``capacity`` frames wait, so memory stays bounded whatever the caller's pace.
///
/// The frame source is handed over to the thread when this is made and is used there only; what
/// the caller needs of it afterwards (its warnings) comes with each frame.
final class FramesAhead {
    /// What the thread hands over, in order: frames, then the end or the error that stopped it.
    enum Item {
        case frame(DecodedImage, warnings: [String])
        case end(warnings: [String])
        case failure(any Error, warnings: [String])
    }

    /// The source and what makes a frame of it: the thread's alone.
    private struct Work {
        let source: any AnimationFrameSource
        let make: (any AnimationFrameSource) throws -> DecodedImage?
    }

    private struct State {
        var ready = FIFO<Item>()
        /// Set when the caller is gone: the thread stops after the frame it is decoding.
        var stopped = false
    }

    /// Frames decoded ahead at most.
    let capacity: Int
    private let state = ConditionBox(State())
    private var thread: WorkerThread?
    private var finished = false

    /// Starts decoding `source`'s frames, each made by `make` (which reads the source's lent
    /// canvas or its own frame) on a new thread.
    ///
    /// - Throws: ``ImageCacheError`` `.io` when the system cannot start a thread.
    init(_ source: any AnimationFrameSource, capacity: Int = 2, make: @escaping (any AnimationFrameSource) throws -> DecodedImage?) throws {
        self.capacity = max(1, capacity)
        // The source and `make` are used by the new thread only from here on: the decoder that
        // made this object reads nothing of them again (deinit joins the thread before they go).
        let work = HandedOver(value: Work(source: source, make: make))
        let state = self.state, capacity = self.capacity
        thread = try WorkerThread(name: "fic-frames-ahead") {
            let source = work.value.source, make = work.value.make
            while true {
                let go = state.withLockedValue(waitingUntil: { $0.stopped || $0.ready.count < capacity }) { !$0.stopped }
                guard go else { return }
                let item: Item
                do {
                    if let image = try make(source) {
                        item = .frame(image, warnings: source.warnings)
                    } else {
                        item = .end(warnings: source.warnings)
                    }
                } catch {
                    item = .failure(error, warnings: source.warnings)
                }
                state.update { $0.ready.append(item) }
                if case .frame = item { continue }
                return
            }
        }
    }

    deinit {
        state.update { $0.stopped = true }
        thread?.join()
    }

    /// The next item, waiting for the thread to decode it; `.end` again after the last.
    func next() -> Item {
        guard !finished else { return .end(warnings: []) }
        let item = state.withLockedValue(waitingUntil: { !$0.ready.isEmpty }) { $0.ready.popFirst()! }
        state.broadcast()  // room for the thread's next frame
        if case .frame = item {} else { finished = true }
        return item
    }
}
