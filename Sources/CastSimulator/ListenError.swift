import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A port castsim could not listen on, and why, in words a person can act on:
/// `port 8008 on 127.0.0.1 (the HTTP port) is already in use`.
public struct ListenError: Error, Sendable, CustomStringConvertible {
    public enum Listener: String, Sendable, CaseIterable {
        case cast = "the Cast port"
        case http = "the HTTP port"
        case https = "the HTTPS port"
        case control = "the control API's port"
    }

    public enum Reason: Sendable, Equatable {
        case inUse
        /// The address is not one of this machine's (EADDRNOTAVAIL).
        case notLocal
        /// Ports below 1024 need privileges (EACCES).
        case denied
        /// The host is no address and no name the resolver knows.
        case unknownHost
        case other(String)
    }

    public let listener: Listener
    public let host: String
    public let port: Int
    public let reason: Reason

    package init(listener: Listener, host: String, port: Int, error: any Error) {
        self.listener = listener
        self.host = host
        self.port = port
        if case SocketAddressError.unknown? = error as? SocketAddressError {
            reason = .unknownHost
            return
        }
        switch (error as? IOError)?.errnoCode {
        case EADDRINUSE?: reason = .inUse
        case EADDRNOTAVAIL?: reason = .notLocal
        case EACCES?: reason = .denied
        default: reason = .other("\(error)")
        }
    }

    /// The sentence, naming the listener as the caller knows it (a command-line flag, say).
    public func description(naming name: String) -> String {
        let subject = "port \(port) on \(host) (\(name))"
        switch reason {
        case .inUse: return "\(subject) is already in use"
        case .notLocal: return "\(subject): \(host) is not an address of this machine"
        case .denied: return "\(subject): permission denied (ports below 1024 need privileges)"
        case .unknownHost: return "\(subject): \(host) is no IP address, nor a name this machine resolves"
        case .other(let text): return "\(subject): cannot listen: \(text)"
        }
    }

    public var description: String { description(naming: listener.rawValue) }
}

/// Discovery could not start as configured (no such interface, no libavahi-client or avahi-daemon).
public struct DiscoveryUnavailable: Error, CustomStringConvertible, Sendable {
    public let description: String
}
