import Glibc

/// The process's limit on open files, which a server with thousands of connections outgrows:
/// many systems start processes with a soft limit of 1024 below a much higher hard limit.
package enum OpenFileLimit {
    /// Raises the soft limit to the hard limit (at most `cap`), and returns the limit in force.
    @discardableResult
    package static func raise(upTo cap: Int = 65_536) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, rlim_t(cap))
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { return Int(wanted) }
        }
        return Int(limit.rlim_cur)
    }
}
