import CastDevice
import Testing

/// The dashed form every multizone `deviceId` has.
func dashed(_ uuid: String) -> String { try! DeviceIdentity(uuid: uuid).dashedUUID }

/// `#require` for values made by a mutating call (the macro cannot take one).
func need<T>(_ value: T?, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    try #require(value, comment, sourceLocation: sourceLocation)
}
