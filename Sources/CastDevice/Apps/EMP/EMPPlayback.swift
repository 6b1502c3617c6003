import CastWire

/// What the EMP receiver plays from Exposure, beside the media session that plays it:
/// the asset or channel, its entitlement, what the sender asked for, and which events
/// have been announced.
struct EMPPlayback: Sendable {
    var content: EMPContent
    let request: EMPLoadRequest
    /// The media session playing it; set once the media receiver has started it.
    var mediaSessionId: Int?
    /// Stretches of the media (positions as MEDIA_STATUS shows them) whose segments are missing.
    var gaps: [ExposureWorld.Gap]
    /// The EPG entry at the playhead of a channel.
    var programIndex: Int?
    /// `timeShiftEnabled` (and a channel's first program) went out on the first ready.
    var announcedReady = false
    /// `tracksupdated` went out on the first playing.
    var announcedPlaying = false
    /// The active tracks the LOAD chose (the sender's languages), and whether the change
    /// that set them is still to come: it is announced by the first playing, not by itself.
    var loadTrackIds: [Int] = []
    var loadTracksUnannounced = true

    init(content: EMPContent, request: EMPLoadRequest) {
        self.content = content
        self.request = request
        if case .asset(let asset) = content.kind { gaps = asset.gaps } else { gaps = [] }
    }

    var isLive: Bool { content.isLive }
    var autoplay: Bool { request.autoplay }
    /// The entitlement allows timeshift and the sender did not turn it off.
    var timeshiftEnabled: Bool { content.grant.timeshiftEnabled && !request.timeShiftDisabled }

    var channel: ExposureWorld.Channel? {
        if case .channel(let channel) = content.kind { return channel }
        return nil
    }

    var asset: ExposureWorld.Asset? {
        if case .asset(let asset) = content.kind { return asset }
        return nil
    }

    var program: ExposureWorld.Program? {
        guard let programIndex, let programs = channel?.programs, programs.indices.contains(programIndex) else { return nil }
        return programs[programIndex]
    }

    /// The asset senders are told about: the VOD asset, or the program's asset on a channel.
    var assetId: String? {
        if isLive { return program?.assetId }
        return content.id
    }

    /// Media commands the entitlement takes away: seeking without ff and rw, and seeking
    /// and pausing a channel that cannot be timeshifted.
    var withheldCommands: MediaCommands {
        var withheld: MediaCommands = []
        if !content.grant.ffEnabled && !content.grant.rwEnabled { withheld.insert(.seek) }
        if isLive && !timeshiftEnabled { withheld.formUnion([.seek, .pause]) }
        return withheld
    }

    /// docs/protocol/emp.md §5.6: the ids senders find in `media.customData` and
    /// `media.empPayload`.
    var empPayload: JSONValue {
        guard isLive else { return ["assetId": .string(content.id)] }
        var payload: [String: JSONValue] = ["channelId": .string(content.id)]
        if let program {
            payload["assetId"] = .string(program.assetId)
            payload["programId"] = .string(program.programId)
        }
        return .object(payload)
    }

    /// The EPG entry on air at scenario time `time`.
    func programIndex(at time: Double) -> Int? {
        // A hair of tolerance: the playhead computed at a boundary may fall just short of it.
        channel?.programs.firstIndex { $0.start <= time + 1e-6 && time + 1e-6 < $0.end }
    }

    /// The next program boundary (a start or an end) after scenario time `time`.
    func nextBoundary(after time: Double) -> Double? {
        channel?.programs.flatMap { [$0.start, $0.end] }.filter { $0 > time + 1e-6 }.min()
    }

    func isMissing(_ position: Double) -> Bool { gaps.contains { $0.contains(position) } }
}

/// The EMP receiver's own state, for inspection (the control API, the dashboard).
public struct EMPSnapshot: Sendable, Equatable {
    public var assetId: String?
    public var channelId: String?
    public var programId: String?
    public var isLive: Bool
    public var timeshiftEnabled: Bool
    public var autoplay: Bool
    public var entitlement: ExposureWorld.Grant
    public var customer: String?
    public var businessUnit: String?
    /// The title of what plays: the program's, the asset's, or the channel's.
    public var title: String?

    public init(assetId: String?, channelId: String?, programId: String?, isLive: Bool, timeshiftEnabled: Bool, autoplay: Bool,
                entitlement: ExposureWorld.Grant, customer: String?, businessUnit: String?, title: String? = nil) {
        self.title = title
        self.assetId = assetId
        self.channelId = channelId
        self.programId = programId
        self.isLive = isLive
        self.timeshiftEnabled = timeshiftEnabled
        self.autoplay = autoplay
        self.entitlement = entitlement
        self.customer = customer
        self.businessUnit = businessUnit
    }
}

extension EMPPlayback {
    var snapshot: EMPSnapshot {
        EMPSnapshot(assetId: assetId, channelId: isLive ? content.id : nil, programId: program?.programId, isLive: isLive,
                    timeshiftEnabled: timeshiftEnabled, autoplay: autoplay, entitlement: content.grant,
                    customer: request.customer, businessUnit: request.businessUnit,
                    title: program?.title ?? asset?.title ?? channel?.title)
    }
}
