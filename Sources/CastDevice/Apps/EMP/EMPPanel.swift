import CastWire

extension EMPSnapshot {
    /// The receiver's panel in the control API's state and on the dashboard: what plays
    /// (ids, entitlement flags), a line saying it and a title to show. The control API adds
    /// `lastEvents`, the newest messages on the EMP namespace.
    var panel: JSONValue {
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? nil }
        func optional(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? nil }
        let grant = entitlement
        return [
            "assetId": optional(assetId), "channelId": optional(channelId), "programId": optional(programId),
            "live": .bool(isLive), "timeshiftEnabled": .bool(timeshiftEnabled), "autoplay": .bool(autoplay),
            "customer": optional(customer), "businessUnit": optional(businessUnit),
            "entitlement": [
                "live": grant.live.map(JSONValue.bool) ?? nil, "ffEnabled": .bool(grant.ffEnabled), "rwEnabled": .bool(grant.rwEnabled),
                "timeshiftEnabled": .bool(grant.timeshiftEnabled), "airplayBlocked": .bool(grant.airplayBlocked),
                "minBitrate": optional(grant.minBitrate), "maxBitrate": optional(grant.maxBitrate),
                "maxResHeight": optional(grant.maxResHeight),
            ],
            "summary": .string(summary),
            "title": optional(title ?? programId ?? assetId ?? channelId),
        ]
    }

    /// `EMP · LIVE · channel ch-1 · Evening News`, `EMP · asset movie-1`.
    var summary: String {
        var parts = ["EMP"]
        if isLive { parts.append("LIVE") }
        if let channelId { parts.append("channel \(channelId)") }
        if let program = channelId == nil ? nil : (title ?? programId.map { "program \($0)" }) { parts.append(program) }
        if channelId == nil, let assetId { parts.append("asset \(assetId)") }
        return parts.joined(separator: " · ")
    }
}
