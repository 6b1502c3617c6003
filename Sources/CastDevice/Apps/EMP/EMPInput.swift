import CastWire

/// What a scenario step or the operator does to the EMP receiver's world while it plays.
public enum EMPInput: Sendable, Equatable {
    /// Broadcast an event on the EMP namespace: with `data` as given, or (nil) with the
    /// receiver's current value, as it would send it (`tracksupdated`, `isLive` ...).
    case sendEvent(type: String, data: JSONValue?)
    /// The entitlement of what plays changes (`entitlementchange`; a refusal stops playback
    /// with `error`).
    case setEntitlement(ExposureWorld.Entitlement)
    /// The program on air ends now and the next one starts (`startTimeLive`, `programchanged`).
    case endProgram
    /// Segments from `from` to `to` seconds of what plays go missing.
    case segmentMissing(from: Double, to: Double)

    /// What an `emp` action a scenario (or the control API) wrote does; nil for another
    /// app's action, or one that does not check.
    package init?(_ action: AppAction) {
        guard action.key == EMPScenarioKeys.action, let input = ExposureParser.input(action) else { return nil }
        self = input
    }

    /// The `emp` action as a scenario writes it: what ``ExposureParser`` reads back.
    public var json: JSONValue {
        func duration(_ seconds: Double) -> JSONValue { .string(ScenarioDuration.format(seconds)) }
        switch self {
        case .sendEvent(let type, let data?): return ["event": .string(type), "data": data]
        case .sendEvent(let type, nil): return ["event": .string(type)]
        case .endProgram: return ["endProgram": true]
        case .segmentMissing(let from, let to): return ["segmentMissing": ["from": duration(from), "to": duration(to)]]
        case .setEntitlement(let entitlement): return ["entitlement": entitlement.json]
        }
    }
}

extension OperatorInput {
    /// Something done to the EMP receiver's world, as the `emp` timeline action.
    public static func emp(_ input: EMPInput) -> OperatorInput {
        .app(AppAction(key: EMPScenarioKeys.action, value: input.json))
    }
}
