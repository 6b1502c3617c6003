import CastWire

/// What Exposure hands the player for a LOAD: a VOD asset or a live channel, with the
/// entitlement to play it.
struct EMPContent: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case asset(ExposureWorld.Asset)
        case channel(ExposureWorld.Channel)
    }

    var id: String
    var kind: Kind
    var grant: ExposureWorld.Grant

    var isLive: Bool { if case .channel = kind { true } else { false } }

    var textLanguages: [String] {
        switch kind {
        case .asset(let asset): asset.textLanguages
        case .channel(let channel): channel.textLanguages
        }
    }

    var audioLanguages: [String] {
        switch kind {
        case .asset(let asset): asset.audioLanguages
        case .channel(let channel): channel.audioLanguages
        }
    }
}

/// Why Exposure refuses a LOAD: the EMP `error` event's code and message, and the CAF
/// `reason` of the LOAD_FAILED that follows.
struct EMPRefusal: Error, Sendable, Equatable {
    var code: Int
    var message: String
    var loadFailedReason: String

    static func sessionToken(_ message: String) -> EMPRefusal {
        EMPRefusal(code: EMPErrorCode.entitlement, message: message, loadFailedReason: "AUTHENTICATION_EXPIRED")
    }

    init(code: Int, message: String, loadFailedReason: String) {
        self.code = code
        self.message = message
        self.loadFailedReason = loadFailedReason
    }

    /// An entitlement refused: CAF reasons for the refusals Exposure gives most.
    init(_ refusal: ExposureWorld.Refusal) {
        code = refusal.code
        message = refusal.message
        loadFailedReason = switch refusal.message {
        case "GEO_BLOCKED": "NOT_AVAILABLE_IN_REGION"
        case "CONCURRENT_STREAMS_LIMIT_REACHED": "CONCURRENT_STREAM_LIMIT"
        case "NOT_ENTITLED", "NOT_AVAILABLE_IN_FORMAT", "NOT_PUBLISHED": "PREMIUM_ACCOUNT_REQUIRED"
        default: "GENERIC_LOAD_ERROR"
        }
    }
}

extension ExposureWorld {
    /// Checks the session token against the business unit, then finds what is asked for
    /// and the entitlement to it, in the order the Exposure play call fails.
    func play(_ request: EMPLoadRequest, defaultDuration: Double) -> Result<EMPContent, EMPRefusal> {
        guard let id = request.requestedId, !id.isEmpty else {
            return .failure(EMPRefusal(code: EMPErrorCode.loadAsset, message: "UNKNOWN_ASSET", loadFailedReason: "INVALID_PARAMS"))
        }
        if isOpen {
            // No Exposure world declared: everything plays, as a VOD asset unless declared.
            if let channel = channels[id] { return .success(EMPContent(id: id, kind: .channel(channel), grant: Grant(live: true))) }
            let asset = assets[id] ?? Asset(duration: defaultDuration)
            return .success(EMPContent(id: id, kind: .asset(asset), grant: Grant(live: false)))
        }
        guard let token = request.sessionToken, !token.isEmpty,
              let owner = businessUnits.first(where: { $0.sessionTokens[token] != nil }) else {
            return .failure(.sessionToken("INVALID_SESSION_TOKEN"))
        }
        if owner.sessionTokens[token] == .expired { return .failure(.sessionToken("SESSION_TOKEN_EXPIRED")) }
        if let customer = request.customer, let businessUnit = request.businessUnit {
            guard businessUnits.contains(where: { $0.customer == customer && $0.businessUnit == businessUnit }) else {
                return .failure(EMPRefusal(code: EMPErrorCode.entitlement, message: "UNKNOWN_BUSINESS_UNIT",
                                           loadFailedReason: "INVALID_PARAMS"))
            }
            // A token is valid only for the business unit it was issued for.
            guard owner.customer == customer, owner.businessUnit == businessUnit else {
                return .failure(.sessionToken("INVALID_SESSION_TOKEN"))
            }
        }
        let kind: EMPContent.Kind
        let entitlement: Entitlement
        if let channel = channels[id] {
            kind = .channel(channel)
            entitlement = channel.entitlement
        } else if let asset = assets[id] {
            kind = .asset(asset)
            entitlement = asset.entitlement
        } else {
            return .failure(EMPRefusal(code: EMPErrorCode.loadAsset, message: "UNKNOWN_ASSET", loadFailedReason: "INVALID_PARAMS"))
        }
        switch entitlement {
        case .refused(let refusal):
            return .failure(EMPRefusal(refusal))
        case .granted(var grant):
            if grant.live == nil {
                if case .channel = kind { grant.live = true } else { grant.live = false }
            }
            return .success(EMPContent(id: id, kind: kind, grant: grant))
        }
    }
}
