import FICCore

extension ColorConverter {
    /// nil when the pixels are sRGB already and nothing needs doing (untagged RGB/gray, .sRGB, cICP 1/13/…, an ICC profile that is sRGB);
    /// a profile that cannot be used (broken, wrong colour space for the layout) gives nil for RGB layouts plus a warning appended to `warnings` (fall back to sRGB, never a failure).
    ///
    /// CMYK layouts always get a converter: through their ICC profile when they have a usable
    /// one, else without a profile the way browsers (Skia) convert CMYK: R = (255 − C)(255 − K) / 255,
    /// G and B likewise with M and Y, the arithmetic of the JPEG decoder's own CMYK conversion.
    /// Grey layouts with a grey profile (or a gamma, or code points) are converted too.
    ///
    /// Converters are made once per distinct profile (the SHA-256 of its bytes) or description
    /// and layout, and kept in a small cache shared by all threads, with the warnings making
    /// them gave: making one costs 2–21 ms in LittleCMS, converting a row costs microseconds.
    package static func make(for description: ColorDescription, layout: Layout, warnings: inout [String]) -> ColorConverter? {
        make(for: description, layout: layout, fastPath: true, warnings: &warnings)
    }

    /// ``make(for:layout:warnings:)``, with the matrix-shaper fast path allowed or not (not: every
    /// RGB profile goes through a LittleCMS transform; for comparing the two).
    package static func make(for description: ColorDescription, layout: Layout, fastPath: Bool, warnings: inout [String]) -> ColorConverter?
    {
        switch description {
        case .untagged, .sRGB:
            return layout.family == .cmyk ? naiveCMYK(layout) : nil
        case .iccProfile, .codePoints, .gamma:
            break
        }
        let key = ConverterCache.Key(description: ConverterCache.DescriptionKey(description), layout: layout, fastPath: fastPath)
        if let cached = ConverterCache.shared.lookup(key) {
            warnings += cached.warnings
            return cached.converter
        }
        var made: [String] = []
        #if ColorManagement
        let converter = ColorConverterBuilder(description: description, layout: layout, fastPath: fastPath).build(warnings: &made)
        #else
        // No colour engine in this build: the pixels are taken as they are (CMYK converted
        // without a profile), and the warning says what was left out and how to get it.
        let converter = layout.family == .cmyk ? naiveCMYK(layout) : nil
        made.append(
            "the image's colour description (\(description.summary)) was ignored: this build has no colour management (FastImageCache's package trait \"ColorManagement\" is off); colours taken as \(layout.family == .cmyk ? "CMYK without a profile" : "sRGB")"
        )
        #endif
        ConverterCache.shared.insert(key, ConverterCache.Entry(converter: converter, warnings: made))
        warnings += made
        return converter
    }

    /// The converters of CMYK without a profile (two: normal and inverted).
    static func naiveCMYK(_ layout: Layout) -> ColorConverter {
        layout == .cmykInverted8 ? invertedNaiveCMYK : plainNaiveCMYK
    }

    private static let plainNaiveCMYK = ColorConverter(layout: .cmyk8, engine: NaiveCMYKEngine(inverted: false))
    private static let invertedNaiveCMYK = ColorConverter(layout: .cmykInverted8, engine: NaiveCMYKEngine(inverted: true))
}

/// The converters made so far, the most recently used kept: a few profiles (sRGB variants,
/// Display P3, Adobe RGB, a CMYK press profile) cover nearly every photo a process sees.
final class ConverterCache: Sendable {
    /// The process's cache.
    static let shared = ConverterCache(capacity: 16)

    /// What identifies a converter.
    struct Key: Hashable, Sendable {
        let description: DescriptionKey
        let layout: ColorConverter.Layout
        let fastPath: Bool
    }

    /// A description, with an ICC profile replaced by its digest: profiles can be megabytes
    /// (CMYK), which the cache should neither keep nor compare byte by byte.
    enum DescriptionKey: Hashable, Sendable {
        case profile(digest: [UInt8])
        case other(ColorDescription)

        init(_ description: ColorDescription) {
            if case .iccProfile(let bytes) = description {
                self = .profile(digest: bytes.withUnsafeBytes { SHA256Hex.digestBytes(of: $0) })
            } else {
                self = .other(description)
            }
        }
    }

    /// A converter (nil: nothing to do) and the warnings making it gave.
    struct Entry: Sendable {
        let converter: ColorConverter?
        let warnings: [String]
    }

    private struct State {
        var entries: [Key: (entry: Entry, lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let state = LockedBox(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The entry for `key`, marked as just used.
    func lookup(_ key: Key) -> Entry? {
        state.withLockedValue { state in
            guard let found = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key] = (found.entry, state.clock)
            return found.entry
        }
    }

    /// Keeps `entry` (the first one made wins when two threads made the same), dropping the
    /// least recently used beyond the capacity.
    func insert(_ key: Key, _ entry: Entry) {
        // A key that is not equal to itself (a NaN gamma or chromaticity) could never be found
        // again, nor removed by key: it is not kept.
        guard key == key else { return }
        state.withLockedValue { state in
            state.clock += 1
            if state.entries[key] == nil {
                state.entries[key] = (entry, state.clock)
            }
            while state.entries.count > capacity,
                let oldest = state.entries.indices.min(by: { state.entries[$0].value.lastUse < state.entries[$1].value.lastUse })
            {
                state.entries.remove(at: oldest)
            }
        }
    }

    /// How many converters are kept.
    var count: Int { state.withLockedValue { $0.entries.count } }
}
