import CastWire

/// Payload members a recording must not keep (`--redact credentials,customData.sessionToken`):
/// each dotted path names a member wherever that path occurs, at any depth, so
/// `customData.sessionToken` catches it at the top level of a LOAD and inside its `media`.
public struct PayloadRedaction: Sendable, Equatable {
    /// What a redacted value becomes.
    public static let marker: JSONValue = "<redacted>"

    /// The paths as given, for the recording's header.
    public let paths: [String]
    private let keyPaths: [[String]]

    /// Refuses an empty path, one with an empty key (`a..b`), and one with an element's
    /// index (`status[0].volume`: arrays are followed through all their elements, so the
    /// path without it is what redacts the member), naming it.
    public init(_ paths: [String]) throws(RedactionPathError) {
        var keyPaths: [[String]] = []
        for path in paths {
            if path.contains("[") || path.contains("]") { throw RedactionPathError(path: path, indexed: true) }
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.isEmpty, keys.allSatisfy({ !$0.isEmpty }) else { throw RedactionPathError(path: path) }
            keyPaths.append(keys)
        }
        self.paths = paths
        self.keyPaths = keyPaths
    }

    public static let none = try! PayloadRedaction([])

    public var isEmpty: Bool { keyPaths.isEmpty }

    /// `value` with every member a path names replaced by ``marker``.
    public func apply(to value: JSONValue) -> JSONValue {
        isEmpty ? value : Self.redact(value, keyPaths)
    }

    /// Looks for every path at every depth.
    private static func redact(_ value: JSONValue, _ paths: [[String]]) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                if paths.contains([key]) {
                    result[key] = marker
                    continue
                }
                var redacted = redact(member, paths)
                let rest = paths.filter { $0.count > 1 && $0[0] == key }.map { Array($0.dropFirst()) }
                if !rest.isEmpty { redacted = anchored(redacted, rest) }
                result[key] = redacted
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map { redact($0, paths) })
        default:
            return value
        }
    }

    /// Follows the paths from exactly here (through arrays' elements).
    private static func anchored(_ value: JSONValue, _ paths: [[String]]) -> JSONValue {
        switch value {
        case .object(var members):
            for path in paths where members[path[0]] != nil {
                members[path[0]] = path.count == 1 ? marker : anchored(members[path[0]]!, [Array(path.dropFirst())])
            }
            return .object(members)
        case .array(let elements):
            return .array(elements.map { anchored($0, paths) })
        default:
            return value
        }
    }
}

public struct RedactionPathError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// The path names an array's element, which a redaction does not.
    public var indexed = false
    public var description: String {
        if indexed {
            let unindexed = path.replacing(/\[[^\]]*\]/, with: "")
            return "\"\(path)\" names an array's element; a redaction follows every element of an array, so write \"\(unindexed)\""
        }
        return "\"\(path)\" is no payload path; expected dotted member names, e.g. credentials or customData.sessionToken"
    }
}
