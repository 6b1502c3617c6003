#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether text is an IPv4 or IPv6 address as written (no name to resolve): what a scenario
/// may give as an address to listen on, checked when the file is read rather than when the
/// step comes.
package enum IPAddressText {
    package static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
