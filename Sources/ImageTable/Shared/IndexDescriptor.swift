/// Which index is active, in one word that a rebuild swaps with one store: the region its buckets
/// are in, how many there are, and a generation that every rebuild bumps.
///
/// ```
/// bit 0       region (0 or 1)
/// bits 1–6    log2 of the bucket count
/// bits 7–63   generation
/// ```
struct IndexDescriptor: Equatable {
    /// The largest generation (57 bits).
    static let maximumGeneration: UInt64 = (1 << 57) - 1

    /// The region holding the buckets.
    let region: Int
    /// log2 of the bucket count.
    let bucketsLog2: Int
    /// Bumped by every rebuild of the index.
    let generation: UInt64

    /// The descriptor of `1 << bucketsLog2` buckets in `region`.
    init(region: Int, bucketsLog2: Int, generation: UInt64) {
        precondition(region == 0 || region == 1, "index region 0 or 1")
        precondition((0...63).contains(bucketsLog2), "a bucket count of six bits")
        precondition(generation <= Self.maximumGeneration, "a generation of 57 bits")
        self.region = region
        self.bucketsLog2 = bucketsLog2
        self.generation = generation
    }

    /// Reads a descriptor from any 64 bits.
    init(rawValue: UInt64) {
        region = Int(rawValue & 1)
        bucketsLog2 = Int((rawValue >> 1) & 63)
        generation = rawValue >> 7
    }

    /// The descriptor as stored.
    var rawValue: UInt64 { generation << 7 | UInt64(bucketsLog2) << 1 | UInt64(region) }

    /// How many buckets the index has (check ``bucketsLog2`` against the layout first: any six
    /// bits decode, and 1 << 63 is not a count).
    var buckets: Int { 1 << bucketsLog2 }

    /// log2 of the buckets an index has for `slots` slots: the smallest power of two ≥ 2 · slots
    /// (so that it is at most half full), at least 2.
    static func bucketsLog2(forSlots slots: Int) -> Int {
        var log2 = 1
        while 1 << log2 < 2 * slots { log2 += 1 }
        return log2
    }
}
