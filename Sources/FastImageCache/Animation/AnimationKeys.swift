import FICCore
import ImageTable

/// The one place where the table keys of an animation's entries are derived from its entity's
/// key: frame 0 is the entity's own entry (so a still image, and every existing lookup, is
/// unchanged), frame *n* ≥ 1 and the animation's record have keys of their own.
///
/// A derived key is the SHA-256 of a byte 0xFF, a tag, the entity key's 16 bytes and the frame
/// number. An entity's own key is the SHA-256 of its identifier's UTF-8 bytes, which never hold
/// 0xFF, so no entity identifier hashes the same bytes as a derived key: a frame entry cannot
/// collide with another entity's key (short of a SHA-256 collision), nor frames of two entities
/// with each other.
enum AnimationKeys {
    /// Labels of frame and record entries start with this character, so that listings of the
    /// entities (``ImageCache/entries(format:)``) can leave them out.
    static let labelMarker: Character = "\u{1}"

    /// The key of frame `frame` (from 0) of the entity whose key is `entity`. Remembered: a
    /// player asks for the same frames loop after loop, and a SHA-256 costs more than the rest of
    /// a lookup.
    static func frame(_ frame: Int, of entity: TableKey) -> TableKey {
        guard frame != 0 else { return entity }
        return remembered(FrameID(entity: entity, frame: frame)) { derived(tag: 0x46, entity: entity, number: UInt64(frame)) }  // "F"
    }

    /// The key remembered for `id`, or the one `derive` makes, then remembered.
    private static func remembered(_ id: FrameID, _ derive: () -> TableKey) -> TableKey {
        if let known = frameKeys.withLockedValue({ $0[id] }) { return known }
        let key = derive()
        frameKeys.withLockedValue { keys in
            if keys.count >= frameKeysCapacity { keys.removeAll(keepingCapacity: true) }  // start over when full
            keys[id] = key
        }
        return key
    }

    /// A frame of an entity (-1: its record), as the memo of derived keys knows it.
    private struct FrameID: Hashable {
        let entity: TableKey
        let frame: Int
    }

    /// The frame and record keys derived lately, process-wide (they depend on nothing but their inputs).
    private static let frameKeys = LockedBox<[FrameID: TableKey]>([:])
    private static let frameKeysCapacity = 65_536

    /// The key of the record that says how many frames the entity's animation has, their
    /// durations and its loop count.
    static func record(of entity: TableKey) -> TableKey {
        remembered(FrameID(entity: entity, frame: -1)) { derived(tag: 0x52, entity: entity, number: 0) }  // "R"
    }

    /// The label of frame `frame` (≥ 1) of `entityID`, for people.
    static func frameLabel(_ frame: Int, of entityID: String) -> String {
        "\(labelMarker)#\(frame) \(entityID)"
    }

    /// The label of the animation record of `entityID`, for people.
    static func recordLabel(of entityID: String) -> String {
        "\(labelMarker)animation \(entityID)"
    }

    /// Whether `label` is that of a frame after the first or of an animation record.
    static func isAnimationLabel(_ label: String) -> Bool {
        label.first == labelMarker
    }

    /// What an entry of `label` is.
    enum Kind {
        /// An entity's image: a still image, or an animation's first frame.
        case image
        /// A frame after the first.
        case frame
        /// An animation record.
        case record
    }

    /// What the entry labelled `label` is (as ``frameLabel(_:of:)`` and ``recordLabel(of:)``
    /// write them).
    static func kind(ofLabel label: String) -> Kind {
        guard isAnimationLabel(label) else { return .image }
        return label.dropFirst().first == "#" ? .frame : .record
    }

    private static func derived(tag: UInt8, entity: TableKey, number: UInt64) -> TableKey {
        var bytes: [UInt8] = [0xFF, 0x66, 0x69, 0x63, tag]  // 0xFF "fic" tag
        withUnsafeBytes(of: entity.high.bigEndian) { bytes += $0 }
        withUnsafeBytes(of: entity.low.bigEndian) { bytes += $0 }
        withUnsafeBytes(of: number.littleEndian) { bytes += $0 }
        return bytes.withUnsafeBytes { TableKey(hashing: $0) }
    }
}
