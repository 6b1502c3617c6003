#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files. A thousand devices are three thousand listening
/// sockets, and thousands of senders as many connections, where a shell's soft limit is
/// often 1,024 (256 on macOS).
package enum DescriptorLimit {
    /// Raises the soft limit to the hard one (processes started from here inherit it) and
    /// returns the limit now in force.
    @discardableResult
    package static func raiseToHard() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = raised.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
