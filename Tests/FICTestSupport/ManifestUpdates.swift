/// Where the shared test data's manifest, written when the package decoded JPEG, PNG and WebP
/// only, no longer says what the package does.
public enum ManifestUpdates {
    /// Files the manifest lists as errors that now decode: `bad/unsupported.gif` is a valid 64×43
    /// GIF, there as an example of a format the package did not decode.
    public static let decodedNow: Set<String> = ["bad/unsupported.gif"]
}
