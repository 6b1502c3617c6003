import CastDevice
import Testing

@Suite("Device identity")
struct IdentityTests {
    @Test("A UUID is 32 hex digits, with or without the usual dashes, in either case", arguments: [
        "0123456789abcdef0123456789abcdef", "0123456789ABCDEF0123456789ABCDEF", "01234567-89ab-cdef-0123-456789abcdef",
    ])
    func accepted(text: String) throws {
        let identity = try DeviceIdentity(uuid: text)
        #expect(identity.uuid == "0123456789abcdef0123456789abcdef")
        #expect(identity.dashedUUID == "01234567-89ab-cdef-0123-456789abcdef")
    }

    @Test("Anything else is refused with a message that says what was expected", arguments: [
        "", "0123", "0123456789abcdef0123456789abcdeg", "0123456789abcdef0123456789abcdef00", "0123-456789ab-cdef-0123-456789abcdef",
        // Fullwidth digits are hex digits to Character.isHexDigit, and no device's UUID.
        String(repeating: "\u{FF10}", count: 31) + "\u{FF41}",
    ])
    func refused(text: String) {
        #expect(throws: IdentityError.invalidUUID(text)) { try DeviceIdentity(uuid: text) }
        #expect(IdentityError.invalidUUID(text).description.contains("expected 32 hex digits, with or without dashes (8-4-4-4-12)"))
    }

    @Test("Capability bits: video out is bit 0, audio out bit 2; audio devices have no idle screen")
    func capabilities() throws {
        #expect(try DeviceIdentity(uuid: String(repeating: "a", count: 32)).capabilityBits == 5)
        let audio = try DeviceIdentity(uuid: String(repeating: "a", count: 32), supportsVideo: false)
        #expect(audio.capabilityBits == 4)
        #expect(DeviceConfiguration(identity: audio).idleScreenAppId == nil)
    }
}
