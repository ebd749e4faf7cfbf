/// The 64-bit word that says, for every process at once, what a slot holds: the truth the shared
/// index only hints at. Every change of a slot changes its version, so a reader that saw the
/// same word before and after copying a record knows the copy is whole.
///
/// ```
/// bits 0–1    state: 0 free, 1 committed, 2 in flight (3 is never written)
/// bits 2–9    in flight: the writing holder + 1; otherwise 0
/// bits 10–63  version
/// ```
/// Any 64 bits decode without trapping; words no writer makes read as not ``isWellFormed``.
package struct SlotWord: Equatable, Sendable {
    /// What a slot holds.
    package enum State: UInt64, Sendable {
        /// Nothing: the slot may be reused.
        case free = 0
        /// A committed entry.
        case committed = 1
        /// Pixels being written by a holder.
        case inFlight = 2
    }

    /// The largest version (54 bits).
    package static let maximumVersion: UInt64 = (1 << 54) - 1
    /// The largest holder an in-flight word can name.
    package static let maximumOwner = 254

    /// The word as stored.
    package let rawValue: UInt64

    /// The word `rawValue`, whatever it holds.
    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A free slot at `version`.
    package static func free(version: UInt64) -> SlotWord { make(.free, ownerBits: 0, version: version) }

    /// A committed slot at `version`.
    package static func committed(version: UInt64) -> SlotWord { make(.committed, ownerBits: 0, version: version) }

    /// A slot being written by holder `owner` (0…254), at `version`.
    package static func inFlight(owner: Int, version: UInt64) -> SlotWord {
        precondition((0...maximumOwner).contains(owner), "an owner the word can name")
        return make(.inFlight, ownerBits: UInt64(owner + 1), version: version)
    }

    private static func make(_ state: State, ownerBits: UInt64, version: UInt64) -> SlotWord {
        precondition(version <= maximumVersion, "a version of 54 bits")
        return SlotWord(rawValue: version << 10 | ownerBits << 2 | state.rawValue)
    }

    /// The state; nil for the state bits 3, which no writer makes.
    package var state: State? { State(rawValue: rawValue & 3) }

    /// The writing holder of an in-flight word; nil when the owner bits are 0.
    package var owner: Int? {
        let bits = Int((rawValue >> 2) & 0xFF)
        return bits == 0 ? nil : bits - 1
    }

    /// The version.
    package var version: UInt64 { rawValue >> 10 }

    /// Whether a writer could have made this word: a known state, and an owner exactly when in flight.
    package var isWellFormed: Bool {
        switch state {
        case .free?, .committed?: return owner == nil
        case .inFlight?: return owner != nil
        case nil: return false
        }
    }
}
