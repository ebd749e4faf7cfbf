import ImageTable

/// The table the crash tests' writer process (`fic-selftest-writer`) fills and the tests read
/// back: one geometry for both sides.
public enum SelfTestTable {
    /// The configuration of a self-test table of `max` entries.
    public static func configuration(max: Int) -> TableConfiguration {
        TableConfiguration(
            pixelWidth: 96, pixelHeight: 64, bytesPerPixel: 4, maximumCount: max, identity: "selftest-writer", chunkBytes: 64 << 10)
    }
}
