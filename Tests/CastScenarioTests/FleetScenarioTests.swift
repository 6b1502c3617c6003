import CastDevice
import CastScenario
import CastWire
import Foundation
import Testing

@Suite("Household scenarios: several devices in one file")
struct FleetScenarioTests {
    static func issues(_ text: String) -> [String] {
        do {
            _ = try FleetScenario.parse(Data(text.utf8))
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    @Test("Each device gets its own section and the steps, rules and expectations that name it; paths stay the file's")
    func split() throws {
        let household = try FleetScenario.parse(Data(#"""
            {"name": "two rooms", "clock": {"mode": "manual"},
             "devices": [{"name": "Kitchen", "capabilities": {"video": false}}, {"name": "Living Room", "uuid": "11111111-2222-3333-4444-555555555555"}],
             "media": {"a.mp3": {"duration": "3m"}},
             "timeline": [{"device": "Living Room", "at": "1s", "volume": {"level": 0.5}},
                          {"device": "Kitchen", "at": "2s", "volume": {"level": 0.2}},
                          {"device": "Living Room", "at": "3s", "remote": "pause"}],
             "rules": [{"device": "Kitchen", "match": {"type": "LOAD"}, "action": "drop"}],
             "expectations": [{"device": "Living Room", "name": "loads", "message": {"type": "LOAD"}}]}
            """#.utf8))
        #expect(household.name == "two rooms")
        #expect(household.devices.map(\.device.identity.friendlyName) == ["Kitchen", "Living Room"])
        let kitchen = household.devices[0], living = household.devices[1]
        #expect(kitchen.device.identity.supportsVideo == false)
        // No UUID given: one derived from the name, the same every run.
        #expect(kitchen.device.identity.uuid == DeviceIdentity.derivedUUID(for: "Kitchen"))
        #expect(living.device.identity.uuid == "11111111222233334444555555555555")
        #expect(kitchen.timeline.map(\.path) == ["timeline[1]"])
        #expect(living.timeline.map(\.path) == ["timeline[0]", "timeline[2]"])
        #expect(kitchen.rules.map(\.name) == ["rules[0]"] && living.rules.isEmpty)
        #expect(living.expectations.map(\.name) == ["loads"] && kitchen.expectations.isEmpty)
        // Shared: the clock and the catalog.
        #expect(kitchen.clock == .manual && living.clock == .manual)
        #expect(living.device.mediaCatalog.entries.map(\.key) == ["a.mp3"])
    }

    @Test("A file with one device (or `device`) is a household of one, read as ever")
    func single() throws {
        let household = try FleetScenario.parse(Data(#"{"name": "one", "device": {"name": "TV"}}"#.utf8))
        #expect(household.devices.map(\.device.identity.friendlyName) == ["TV"])
    }

    @Test("Problems are reported where they are in the file, once each")
    func problems() {
        #expect(Self.issues(#"""
            {"name": "x", "devices": [{"name": "A"}, {"name": "B", "volume": {"level": 2}}],
             "timeline": [{"device": "A", "at": "1s", "volume": {"level": 0.1}}, {"device": "B", "at": "soon", "remote": "pause"}]}
            """#) == [
            "devices[1].volume.level: expected a number from 0 to 1, got 2",
            #"timeline[1].at: expected a duration like "5s", got "soon""#,
        ])
        #expect(Self.issues(#"""
            {"name": "x", "devices": [{"name": "A"}, {"name": "A"}],
             "timeline": [{"at": "1s", "remote": "pause"}, {"device": "C", "at": "1s", "remote": "pause"}],
             "expectations": [{"device": 3, "name": "n", "message": {"type": "LOAD"}}]}
            """#) == [
            #"devices[1].name: "A" names another device too; each device needs a name of its own"#,
            #"timeline[0]: names no device; in a scenario with devices, each says which ("device": one of "A", "A")"#,
            #"timeline[1].device: expected one of "A", "A", got "C""#,
            #"expectations[0].device: expected one of "A", "A", got 3"#,
        ])
        #expect(Self.issues(#"{"name": "x", "devices": [{"name": "A", "uuid": "\#(String(repeating: "ab", count: 16))"}, {"name": "B", "uuid": "\#(String(repeating: "AB", count: 16))"}]}"#)
            == ["devices[1].uuid: abababab-abab-abab-abab-abababababab is devices[0]'s UUID too; give each device its own (or none: it is derived from the name)"])
        #expect(Self.issues(#"{"name": "x", "device": {}, "devices": [{"name": "A"}]}"#)
            == [#"device: a scenario has either one device or a list of devices; this one has both "device" and "devices""#])
        #expect(Self.issues(#"{"name": "x", "devices": []}"#) == ["devices: expected a non-empty array of device sections"])
        // A shared section's problem shows once, not once per device.
        #expect(Self.issues(#"{"name": "x", "devices": [{"name": "A"}, {"name": "B"}], "clock": {"mode": "sideways"}}"#).count == 1)
    }

    @Test("One device's reader refuses a household and a `device` key, saying why")
    func singleDeviceRefuses() {
        do {
            _ = try Scenario.parse(Data(#"{"name": "x", "devices": [{"name": "A"}], "timeline": [{"device": "A", "at": "1s", "remote": "pause"}]}"#.utf8))
            Issue.record("a household parsed as one device")
        } catch {
            #expect(error.issues.map(\.description) == [
                "devices: a scenario with several devices runs as a household (castsim run --scenario), not in one device",
                #"timeline[0].device: names a device; only a scenario with "devices" does"#,
            ])
        }
    }

    @Test("The household's report: passed only when every device's passed, each expectation with its device")
    func report() throws {
        func report(_ json: String) throws -> ScenarioReport { try JSONDecoder().decode(ScenarioReport.self, from: Data(json.utf8)) }
        let passed = try report(#"""
            {"scenario": "h", "passed": true, "duration": 3, "stepsFired": 1, "stepsTotal": 1, "messagesReceived": 4,
             "expectations": [{"name": "a", "kind": "message", "passed": true, "decidedAt": 1, "evidence": []}]}
            """#)
        let failed = try report(#"""
            {"scenario": "h", "passed": false, "duration": 5, "stepsFired": 1, "stepsTotal": 1, "messagesReceived": 4,
             "expectations": [{"name": "b", "kind": "never", "passed": false, "decidedAt": 2, "reason": "it came", "evidence": []}]}
            """#)
        let merged = FleetScenario.report("h", [("Kitchen", passed), ("Living Room", failed)])
        #expect(!merged.passed && merged.duration == 5 && merged.stepsFired == 2 && merged.messagesReceived == 8)
        #expect(merged.expectations.map(\.device) == ["Kitchen", "Living Room"])
        #expect(merged.junitXML().contains(#"classname="castsim.h.Living Room" name="b""#))
        let json = try JSONValue.parse(merged.json())
        #expect(json["expectations"]?.arrayValue?.first?["device"] == "Kitchen")
        // One device: its report as it is, no device marks.
        #expect(FleetScenario.report("h", [("Kitchen", passed)]) == passed)
    }
}

@Suite("Household scenarios: speaker groups and household steps")
struct HouseholdGroupScenarioTests {
    static let devices = #""devices": [{"name": "Kitchen", "capabilities": {"video": false}}, {"name": "Bedroom", "capabilities": {"video": false}}, {"name": "TV"}]"#

    @Test("groups: members by name, the leader (first unless named), a stable port in the 32000s and a UUID from the name unless given")
    func groups() throws {
        let household = try FleetScenario.parse(Data(#"""
            {"name": "h", \#(Self.devices),
             "groups": [{"name": "Upstairs", "members": ["Kitchen", "Bedroom"]},
                        {"name": "All", "members": ["Kitchen", "Bedroom", "TV"], "leader": "TV", "port": 42008, "uuid": "6f1c0e2a-9b3d-4c5e-8f7a-1b2c3d4e5f60"}],
             "timeline": [{"device": "Bedroom", "at": "5s", "leadGroup": {"group": "Upstairs", "rename": true}},
                          {"device": "Kitchen", "at": "6s", "offline": true}, {"device": "Kitchen", "at": "7s", "online": true},
                          {"device": "TV", "at": "8s", "createGroup": {"name": "Pair", "members": ["TV", "Kitchen"]}},
                          {"device": "TV", "at": "9s", "deleteGroup": "Pair"}]}
            """#.utf8))
        #expect(household.groups.map(\.name) == ["Upstairs", "All"])
        let upstairs = household.groups[0], all = household.groups[1]
        #expect(upstairs.leader == "Kitchen" && upstairs.members == ["Kitchen", "Bedroom"])
        #expect(upstairs.uuid == DeviceIdentity.derivedUUID(for: "group:Upstairs"))
        #expect((32000..<33000).contains(upstairs.port))
        #expect(try FleetScenario.parse(Data(#"{"name": "again", \#(Self.devices), "groups": [{"name": "Upstairs", "members": ["Kitchen"]}]}"#.utf8)).groups[0].port == upstairs.port)
        #expect(all.leader == "TV" && all.port == 42008 && all.uuid == "6f1c0e2a9b3d4c5e8f7a1b2c3d4e5f60")
        #expect(household.devices[1].timeline.map(\.action) == [.household(.leadGroup("Upstairs", rename: true))])
        #expect(household.devices[0].timeline.map(\.action) == [.household(.offline), .household(.online)])
        #expect(household.devices[2].timeline.map(\.action) == [
            .household(.createGroup(GroupDeclaration(name: "Pair", members: ["TV", "Kitchen"]))), .household(.deleteGroup("Pair")),
        ])
    }

    @Test("Group problems: unknown members and leaders, shared ports and names, steps naming no group, a device's own port")
    func problems() {
        #expect(FleetScenarioTests.issues(#"""
            {"name": "h", \#(Self.devices),
             "groups": [{"name": "Upstairs", "members": ["Kitchen", "Attic"], "leader": "TV", "port": 32100},
                        {"name": "Upstairs", "members": ["TV"], "port": 32100},
                        {"name": "Odd", "members": ["TV"], "port": 8009},
                        {"name": "Empty", "members": []}],
             "timeline": [{"device": "TV", "at": "1s", "leadGroup": "Downstairs"}, {"device": "TV", "at": "2s", "deleteGroup": "Nowhere"}]}
            """#) == [
            "groups[2].port: 8009 is a device's own port; a group listens elsewhere (senders take any port but 8009 for a group)",
            "groups[3].members: expected at least one device",
            #"groups[0].members: "Attic" is no device; expected some of "Kitchen", "Bedroom", "TV""#,
            #"groups[0].leader: "TV" is not among its members "Kitchen", "Attic""#,
            #"groups[1].name: "Upstairs" names another group too"#,
            #"groups[1].port: 32100 is Upstairs's port too; each group listens on its own"#,
            #"timeline[0]: no group "Downstairs"; the groups are "Odd", "Upstairs""#,
            #"timeline[1]: no group "Nowhere"; the groups are "Odd", "Upstairs""#,
        ])
        // Deleted by one step, made again by another: the same name and port are fine.
        #expect(FleetScenarioTests.issues(#"""
            {"name": "h", \#(Self.devices), "groups": [{"name": "Upstairs", "members": ["Kitchen", "Bedroom"], "port": 32100}],
             "timeline": [{"device": "Kitchen", "at": "1s", "deleteGroup": "Upstairs"},
                          {"device": "Bedroom", "at": "2s", "createGroup": {"name": "Upstairs", "members": ["Bedroom"], "port": 32100}}]}
            """#) == [])
        // Named like a device (senders list both, and the control API picks either by name);
        // a device listed twice.
        #expect(FleetScenarioTests.issues(#"{"name": "h", \#(Self.devices), "groups": [{"name": "TV", "members": ["Kitchen", "Bedroom", "Kitchen"]}]}"#) == [
            #"groups[0].name: "TV" names a device too; a group needs a name of its own"#,
            #"groups[0].members: "Kitchen" is listed twice; a device is in a group once"#,
        ])
        // A device of a household without a name: nobody wrote the "castsim" it would get.
        #expect(FleetScenarioTests.issues(#"{"name": "h", "devices": [{"name": "A"}, {}, {}]}"#) == [
            "devices[1].name: missing; each device of a household needs a name of its own",
            "devices[2].name: missing; each device of a household needs a name of its own",
        ])
        // A one-device scenario has no household.
        #expect(FleetScenarioTests.issues(#"{"name": "x", "groups": [{"name": "G", "members": ["castsim"]}]}"#)
            == ["groups: a scenario with several devices runs as a household (castsim run --scenario), not in one device"])
    }

    @Test("A stereo pair: two speakers of one model in groups; three members, two models, a second pair or a step are refused")
    func stereoPairs() throws {
        let speakers = #""devices": [{"name": "L", "profile": "nest-audio"}, {"name": "R", "profile": "nest-audio"}, {"name": "M", "profile": "nest-mini"}]"#
        let household = try FleetScenario.parse(Data(#"""
            {"name": "h", \#(speakers), "groups": [{"name": "Pair", "members": ["L", "R"], "stereoPair": true}]}
            """#.utf8))
        #expect(household.groups.first?.stereoPair == true && household.groups.first?.leader == "L")
        #expect(FleetScenarioTests.issues(#"""
            {"name": "h", \#(speakers),
             "groups": [{"name": "Three", "members": ["L", "R", "M"], "stereoPair": true},
                        {"name": "Mixed", "members": ["R", "M"], "stereoPair": true},
                        {"name": "Again", "members": ["R", "L"], "stereoPair": true},
                        {"name": "Odd", "members": ["L"], "stereoPair": "yes"}],
             "timeline": [{"device": "M", "at": "1s", "createGroup": {"name": "New", "members": ["M", "L"], "stereoPair": true}}]}
            """#) == [
            #"groups[3].stereoPair: expected true or false, got "yes""#,
            #"groups[0].members: a stereo pair is two speakers, left then right; got 3 ("L", "R", "M")"#,
            #"groups[1].members: a stereo pair is two speakers of one model; "R", "M" are "Nest Audio", "Google Nest Mini""#,
            #"groups[2].members: "R" is in the stereo pair "Mixed" already"#,
            "timeline[0].createGroup.stereoPair: a stereo pair is declared in the scenario's groups, not made by a step",
        ])
    }
}
