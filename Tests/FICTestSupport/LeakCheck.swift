import Glibc

/// LeakSanitizer's own check, callable in the middle of a test when the tests are built with
/// Address Sanitizer (`swift test --sanitize=address`, as scripts/test's sanitizer runs are).
public enum LeakCheck {
    private typealias Check = @convention(c) () -> CInt

    /// `__lsan_do_recoverable_leak_check`, found in the running process; nil without the sanitizer.
    private static let check: Check? = {
        // RTLD_DEFAULT (a null handle): every object loaded in the process, the runtime included.
        guard let symbol = dlsym(nil, "__lsan_do_recoverable_leak_check") else { return nil }
        return unsafeBitCast(symbol, to: Check.self)
    }()

    /// Whether the process runs under LeakSanitizer.
    public static var isAvailable: Bool { check != nil }

    /// Looks for memory no pointer reaches now (honouring LSAN_OPTIONS' suppressions); true when
    /// it found some, whose report LeakSanitizer printed to stderr. Nil without the sanitizer.
    public static func findsLeaks() -> Bool? {
        check.map { $0() != 0 }
    }
}
