#if Loader
/// What a response's `Cache-Control` header allows: whether the body may be stored, and for how
/// long it is fresh. Unknown directives are ignored; malformed values count as absent.
struct CachePolicy: Sendable, Hashable {
    /// `no-store`: the body must not be written to the disk cache.
    var noStore = false
    /// Seconds the body is fresh (`max-age`; 0 for `no-cache`), or nil when the header says nothing.
    var maximumAge: Int64?

    init(cacheControl values: [String]) {
        for value in values {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = parts[0].trimmingCharacters(in: " \t").lowercased()
                switch name {
                case "no-store":
                    noStore = true
                case "no-cache":
                    maximumAge = 0
                case "max-age":
                    guard parts.count == 2 else { continue }
                    let text = parts[1].trimmingCharacters(in: " \t\"")
                    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { continue }
                    // Absurdly long numbers saturate instead of trapping.
                    let seconds = Int64(text) ?? Int64.max
                    if maximumAge != 0 { maximumAge = min(seconds, maximumAge ?? .max) }
                default:
                    continue
                }
            }
        }
    }
}

extension Substring {
    /// The text without leading and trailing characters of `set`.
    func trimmingCharacters(in set: String) -> String {
        let drop = Set(set)
        var s = self[...]
        while let f = s.first, drop.contains(f) { s = s.dropFirst() }
        while let l = s.last, drop.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
#endif
