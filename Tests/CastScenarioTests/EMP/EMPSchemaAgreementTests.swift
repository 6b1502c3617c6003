import CastDevice
import CastScenario
import CastWire
import Testing

/// The EMP receiver's key sets are written once, in its parser; its part of the JSON
/// Schema must list the same keys, object by object.
@Suite("The EMP receiver's schema and parser agree")
struct EMPSchemaAgreementTests {
    static let schema = ScenarioSchema.document

    private func properties(_ path: [String]) -> Set<String> {
        var value: JSONValue? = Self.schema
        for key in path { value = value?[key] }
        return Set(value?["properties"]?.objectValue?.keys ?? [:].keys)
    }

    @Test("Every object's keys", arguments: [
        (["$defs", "exposure"], EMPScenarioKeys.exposure),
        (["$defs", "exposure", "properties", "businessUnits", "items"], EMPScenarioKeys.businessUnit),
        (["$defs", "exposureAsset"], EMPScenarioKeys.asset), (["$defs", "exposureChannel"], EMPScenarioKeys.channel),
        (["$defs", "exposureProgram"], EMPScenarioKeys.program), (["$defs", "span"], EMPScenarioKeys.span),
        (["$defs", "grant"], EMPScenarioKeys.grant), (["$defs", "refusal"], EMPScenarioKeys.refusal),
        (["$defs", "action", "properties", "emp"], EMPScenarioKeys.emp),
    ])
    func keys(path: [String], parser: Set<String>) {
        #expect(properties(path) == parser, "schema \(path) vs parser")
    }

    @Test("The section, the action, the behaviour and the namespace alias are in the scenario schema")
    func composed() {
        #expect(properties([]).contains(EMPScenarioKeys.section))
        #expect(properties(["$defs", "step"]).contains(EMPScenarioKeys.action))
        #expect(ScenarioKeys.behaviours.contains(AppBehaviour.emp.rawValue))
        #expect(MessagePattern.namespaceAliases["emp"] == CastNamespace.emp)
        // Each entitlement key belongs to the grant or the refusal, never to both.
        #expect(EMPScenarioKeys.grant.isDisjoint(with: EMPScenarioKeys.refusal))
    }

    @Test("Each typed EMP input, written as its action, reads back the same", arguments: [
        EMPInput.sendEvent(type: "isLive", data: nil), .sendEvent(type: "error", data: ["code": 1]), .endProgram,
        .segmentMissing(from: 10, to: 12.5), .setEntitlement(.refused(.init(message: "GEO_BLOCKED", code: 102))),
        .setEntitlement(.granted(.init(live: true, ffEnabled: false, maxBitrate: 5_000_000))),
    ])
    func roundTrip(input: EMPInput) throws {
        let action = try ScenarioFragment.action(["emp": input.json])
        #expect(action == .device(.emp(input)))
    }
}
