import CastWire

extension ExposureWorld {
    /// The `exposure` section that declares this world, in scenario syntax (nil for the
    /// open world, which is the absence of one): what ``ExposureParser`` reads back.
    var section: JSONValue? {
        guard !isOpen else { return nil }
        func duration(_ seconds: Double) -> JSONValue { .string(ScenarioDuration.format(seconds)) }
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        func title(_ title: String?, _ members: inout [String: JSONValue]) { if let title { members["title"] = .string(title) } }
        let assets: [String: JSONValue] = self.assets.mapValues { asset in
            var members: [String: JSONValue] = [
                "textLanguages": strings(asset.textLanguages), "audioLanguages": strings(asset.audioLanguages),
                "gaps": .array(asset.gaps.map { ["from": duration($0.from), "to": duration($0.to)] }),
                "entitlement": asset.entitlement.json,
            ]
            title(asset.title, &members)
            if let seconds = asset.duration { members["duration"] = duration(seconds) }
            if let seconds = asset.bookmark { members["bookmark"] = duration(seconds) }
            return .object(members)
        }
        let channels: [String: JSONValue] = self.channels.mapValues { channel in
            var members: [String: JSONValue] = [
                "textLanguages": strings(channel.textLanguages), "audioLanguages": strings(channel.audioLanguages),
                "entitlement": channel.entitlement.json,
                "programs": .array(channel.programs.map { program in
                    var members: [String: JSONValue] = [
                        "programId": .string(program.programId), "assetId": .string(program.assetId),
                        "start": duration(program.start), "end": duration(program.end),
                    ]
                    title(program.title, &members)
                    return .object(members)
                }),
            ]
            title(channel.title, &members)
            return .object(members)
        }
        return [
            "epoch": .string(ISOTime.text(milliseconds: epochMilliseconds)),
            "businessUnits": .array(businessUnits.map { unit in
                ["customer": .string(unit.customer), "businessUnit": .string(unit.businessUnit),
                 "sessionTokens": .object(unit.sessionTokens.mapValues { .string($0.rawValue) })]
            }),
            "assets": .object(assets), "channels": .object(channels),
            "realReceiverExtras": .bool(realReceiverExtras), "liveDelay": duration(liveDelay),
        ]
    }
}

extension ExposureWorld.Entitlement {
    /// As a scenario writes it: a grant's flags, or `{"refuse": ..., "code": ...}`.
    var json: JSONValue {
        switch self {
        case .refused(let refusal):
            return ["refuse": .string(refusal.message), "code": .number(Double(refusal.code))]
        case .granted(let grant):
            var members: [String: JSONValue] = [
                "ffEnabled": .bool(grant.ffEnabled), "rwEnabled": .bool(grant.rwEnabled),
                "timeshiftEnabled": .bool(grant.timeshiftEnabled), "airplayBlocked": .bool(grant.airplayBlocked),
            ]
            if let live = grant.live { members["live"] = .bool(live) }
            if let value = grant.minBitrate { members["minBitrate"] = .number(Double(value)) }
            if let value = grant.maxBitrate { members["maxBitrate"] = .number(Double(value)) }
            if let value = grant.maxResHeight { members["maxResHeight"] = .number(Double(value)) }
            return .object(members)
        }
    }
}

extension DeviceConfiguration {
    /// The Exposure world this device's EMP receiver plays from: its scenario's `exposure`
    /// section, read; set, the section that declares the world.
    package var exposure: ExposureWorld {
        get { ExposureParser.world(of: self) }
        set { appSections[EMPScenarioKeys.section] = newValue.section }
    }
}
