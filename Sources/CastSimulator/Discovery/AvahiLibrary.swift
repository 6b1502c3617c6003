#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libavahi-client, opened when `--mdns avahi` asks for it rather than linked: castsim
/// builds without Avahi's headers, and one binary (the release one included) runs on a
/// machine without Avahi and publishes through avahi-daemon on one that has it.
///
/// The part of Avahi's C API the publisher uses, declared here from its headers
/// (avahi-client/client.h, publish.h, avahi-common/*.h, ABI version 3): the functions,
/// the enum values it compares and the one struct it allocates.
final class AvahiLibrary: @unchecked Sendable {
    // @unchecked: every stored property is a `let` set once in `init`.

    /// The sonames tried in order (Debian/Ubuntu: the libavahi-client3 package).
    static let sonames = ["libavahi-client.so.3"]

    /// Loaded on first use; the reason it could not be, otherwise.
    static let shared: Result<AvahiLibrary, DiscoveryUnavailable> = Result { () throws(DiscoveryUnavailable) in try AvahiLibrary() }

    // MARK: Avahi's values (its headers' enums, all C ints)

    /// AVAHI_PROTO_UNSPEC, AVAHI_IF_UNSPEC: IPv4 and IPv6; every interface.
    static let protoUnspecified: Int32 = -1
    static let interfaceUnspecified: Int32 = -1
    /// AvahiClientState: the server's states, then the client's own.
    static let clientRegistering: Int32 = 1, clientRunning: Int32 = 2, clientCollision: Int32 = 3, clientFailure: Int32 = 100
    /// AvahiEntryGroupState.
    static let groupEstablished: Int32 = 2, groupCollision: Int32 = 3, groupFailure: Int32 = 4
    /// AVAHI_PUBLISH_NO_REVERSE: an address record without its PTR.
    static let publishNoReverse: Int32 = 16
    /// AVAHI_ERR_COLLISION.
    static let errorCollision: Int32 = -8

    /// AvahiAddress: an `int` protocol, then a union of at most 16 bytes (align 4): 20 bytes.
    /// Only Avahi reads and writes it; castsim passes it from `address_parse` to `add_address`.
    typealias Address = (Int32, UInt32, UInt32, UInt32, UInt32)

    typealias ClientCallback = @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Void
    typealias GroupCallback = @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Void

    // MARK: Functions

    let threadedPollNew: @convention(c) () -> OpaquePointer?
    let threadedPollFree: @convention(c) (OpaquePointer?) -> Void
    let threadedPollGet: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let threadedPollStart: @convention(c) (OpaquePointer?) -> Int32
    let threadedPollStop: @convention(c) (OpaquePointer?) -> Int32
    let threadedPollLock: @convention(c) (OpaquePointer?) -> Void
    let threadedPollUnlock: @convention(c) (OpaquePointer?) -> Void
    /// (poll, flags, callback, userdata, &error)
    let clientNew: @convention(c) (OpaquePointer?, Int32, ClientCallback?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> OpaquePointer?
    let clientFree: @convention(c) (OpaquePointer?) -> Void
    let clientErrno: @convention(c) (OpaquePointer?) -> Int32
    let entryGroupNew: @convention(c) (OpaquePointer?, GroupCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
    let entryGroupFree: @convention(c) (OpaquePointer?) -> Int32
    let entryGroupCommit: @convention(c) (OpaquePointer?) -> Int32
    let entryGroupReset: @convention(c) (OpaquePointer?) -> Int32
    /// (group, interface, protocol, flags, name, type, domain, host, port, txt)
    let entryGroupAddServiceStrlst: @convention(c) (OpaquePointer?, Int32, Int32, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                    UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt16, OpaquePointer?) -> Int32
    /// (group, interface, protocol, flags, name, type, domain, subtype)
    let entryGroupAddServiceSubtype: @convention(c) (OpaquePointer?, Int32, Int32, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                     UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    /// (group, interface, protocol, flags, name, type, domain, txt)
    let entryGroupUpdateServiceTxtStrlst: @convention(c) (OpaquePointer?, Int32, Int32, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                          UnsafePointer<CChar>?, OpaquePointer?) -> Int32
    /// (group, interface, protocol, flags, host name, address)
    let entryGroupAddAddress: @convention(c) (OpaquePointer?, Int32, Int32, Int32, UnsafePointer<CChar>?, UnsafeRawPointer?) -> Int32
    /// (text, protocol, result): the result, or nil when the text is no address.
    let addressParse: @convention(c) (UnsafePointer<CChar>?, Int32, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    let alternativeServiceName: @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?
    /// (list, text): the new head (Avahi prepends).
    let stringListAdd: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    let stringListFree: @convention(c) (OpaquePointer?) -> Void

    private init() throws(DiscoveryUnavailable) {
        var reasons: [String] = []
        var opened: UnsafeMutableRawPointer?
        for soname in Self.sonames {
            opened = dlopen(soname, RTLD_NOW | RTLD_LOCAL)
            if opened != nil { break }
            reasons.append(dlerror().map { String(cString: $0) } ?? soname)
        }
        guard let handle = opened else {
            throw DiscoveryUnavailable(description: "--mdns avahi needs libavahi-client (\(reasons.joined(separator: "; "))): "
                + "install it (Debian/Ubuntu: apt install avahi-daemon libavahi-client3), or use --mdns builtin")
        }
        // The handle stays open for the life of the process: the functions below point into it.
        func symbol<T>(_ name: String) throws(DiscoveryUnavailable) -> T {
            guard let address = dlsym(handle, name) else {
                throw DiscoveryUnavailable(description: "--mdns avahi: \(Self.sonames[0]) has no \(name); is it Avahi's client library?")
            }
            return unsafeBitCast(address, to: T.self)
        }
        threadedPollNew = try symbol("avahi_threaded_poll_new")
        threadedPollFree = try symbol("avahi_threaded_poll_free")
        threadedPollGet = try symbol("avahi_threaded_poll_get")
        threadedPollStart = try symbol("avahi_threaded_poll_start")
        threadedPollStop = try symbol("avahi_threaded_poll_stop")
        threadedPollLock = try symbol("avahi_threaded_poll_lock")
        threadedPollUnlock = try symbol("avahi_threaded_poll_unlock")
        clientNew = try symbol("avahi_client_new")
        clientFree = try symbol("avahi_client_free")
        clientErrno = try symbol("avahi_client_errno")
        entryGroupNew = try symbol("avahi_entry_group_new")
        entryGroupFree = try symbol("avahi_entry_group_free")
        entryGroupCommit = try symbol("avahi_entry_group_commit")
        entryGroupReset = try symbol("avahi_entry_group_reset")
        entryGroupAddServiceStrlst = try symbol("avahi_entry_group_add_service_strlst")
        entryGroupAddServiceSubtype = try symbol("avahi_entry_group_add_service_subtype")
        entryGroupUpdateServiceTxtStrlst = try symbol("avahi_entry_group_update_service_txt_strlst")
        entryGroupAddAddress = try symbol("avahi_entry_group_add_address")
        addressParse = try symbol("avahi_address_parse")
        alternativeServiceName = try symbol("avahi_alternative_service_name")
        free = try symbol("avahi_free")
        strerror = try symbol("avahi_strerror")
        stringListAdd = try symbol("avahi_string_list_add")
        stringListFree = try symbol("avahi_string_list_free")
    }

    /// Avahi's text for an error code.
    func message(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
