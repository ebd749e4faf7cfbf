import FICCore
import Glibc
import SystemPackage

/// A promise, between processes and between threads, that its holder is making an entity's
/// images, so that the others wait for them rather than decode the same source again: an
/// open-file-description lock on one byte of the table file far beyond its end, chosen by the
/// entity's key, taken through a descriptor of its own. The kernel releases it when the holder
/// lets go, closes it, or dies at whatever instruction; a holder that is stopped keeps the others
/// waiting only until their time limit, after which they make the images themselves (a claim
/// saves work, it never decides what is stored).
///
/// Two entities whose keys share the byte share the claim: one then waits for the other's
/// images for nothing, and makes its own afterwards.
public final class StoreClaim: Sendable {
    /// The first byte of the claims' range (beyond ``TableFile/gateByte``, the open gate).
    static let firstByte: Int64 = 1 << 61
    /// How many bytes the entities' keys are spread over.
    static let bytes: UInt64 = 1 << 40
    /// The longest pause between two tries of a waiting claim: claims are held for decodes
    /// (milliseconds to seconds), and the images are looked up again after it anyway.
    static let longestPause = Duration.milliseconds(4)

    private let held: LockedBox<FileDescriptor?>
    private let byte: Int64
    private let path: String
    /// Whether another process or thread held the claim when this one first asked for it, so that
    /// the images may be there now.
    public let waited: Bool

    init(_ descriptor: FileDescriptor, byte: Int64, path: String, waited: Bool) {
        held = LockedBox(descriptor)
        self.byte = byte
        self.path = path
        self.waited = waited
    }

    deinit { release() }

    /// The byte that claims `entity`.
    static func byte(for entity: TableKey) -> Int64 {
        firstByte + Int64(entity.low % bytes)
    }

    /// Lets the others go on (once; also when the claim is dropped).
    public func release() {
        guard
            let descriptor = held.withLockedValue({ d in
                defer { d = nil }; return d
            })
        else { return }
        try? descriptor.unlockRange(start: byte, length: 1, path: path)
        descriptor.closeQuietly()
    }
}

extension ImageTable {
    /// Claims the making of `entity`'s images among every process and thread that claims through
    /// this table file: waits while another holds the claim, for up to `timeout`, calling
    /// `waiting` once if it has to. Check the table again when the returned claim
    /// ``StoreClaim/waited``: the other may have stored what was wanted.
    ///
    /// Returns nil when nothing can be claimed (a closed or read-only table, no `/proc`, a
    /// failing system call) or the other held the claim all that time: go on without one.
    public func claimStoring(_ entity: TableKey, timeout: Duration, waiting: () -> Void = {}) -> StoreClaim? {
        guard let own = reopenedFileForClaims() else { return nil }
        let byte = StoreClaim.byte(for: entity)
        var waited = false
        do {
            if try SharedWriterLock.acquire(
                own, byte: byte, timeout: timeout, longestPause: StoreClaim.longestPause, path: path,
                waiting: {
                    waited = true; waiting()
                })
            {
                return StoreClaim(own, byte: byte, path: path, waited: waited)
            }
        } catch {}
        own.closeQuietly()
        return nil
    }
}
