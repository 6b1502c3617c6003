import CastDevice
import CastDiscovery
import CastScenario
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A household's speaker groups at work (docs/protocol/groups.md): the pure ``Household`` decides
/// what each endpoint must do, this carries it out on the fleet's event loop.
///
/// Every device's own endpoint and every group's endpoint is a ``CastSimulator``. A group's
/// listens at its leader's address on the group's port, with no eureka_info of its own, and
/// is advertised as the group (`Google-Cast-Group-<hex>`, SRV to the leader's host). Events of
/// every endpoint come here, go through the household, and the inputs it returns go to the
/// endpoints they are for; the events those raise come back in turn, until none is left.
/// Starting, stopping and moving a group's endpoint take a socket bind and so happen
/// asynchronously; inputs for an endpoint not up yet wait for it.
final class HouseholdRuntime {
    private let loop: any EventLoop
    private let group: MultiThreadedEventLoopGroup
    private let logger: Logger
    /// What a group's endpoint starts from: the clock, PKI, journal and discovery of the fleet.
    private let template: SimulatorConfiguration
    private var household = Household()
    /// Each device's own endpoint, by UUID.
    private let devices: [String: CastSimulator]
    private var groupEndpoints: [String: GroupEndpoint] = [:]
    /// Device names in scenario steps, to UUIDs (group names are the household's).
    private let deviceIds: [String: String]
    private var events = CircularBuffer<(DeviceEvent, HouseholdEndpoint)>()
    private var draining = false
    private var stopping = false
    /// Each simulator's listener changes (offline, online, a group moving), one after the
    /// other: a close and a bind of the same port must not race.
    private var listenerWork: [ObjectIdentifier: Task<Void, Never>] = [:]
    /// Starts, moves and advertisements in flight, for ``stop()`` to wait for.
    private var inFlight: [Int: Task<Void, Never>] = [:]
    private var lastTask = 0
    /// Each group endpoint's start is numbered: a completion of an older one is stale.
    private var lastGeneration = 0
    /// The running group endpoints (for the control API), updated as they come and go.
    private let endpoints: NIOLockedValueBox<[String: CastSimulator]>

    /// A group's endpoint: starting (no simulator yet), running, or moving.
    private struct GroupEndpoint {
        var simulator: CastSimulator?
        /// Which start this is (a group stopped and started again is a new one).
        let generation: Int
        /// The address it listens at, or is starting at.
        var listeningHost: String
        /// Where it should listen: its leader's address, changed by a move.
        var wantedHost: String
        var port: Int
        /// Inputs that came while it was starting.
        var waiting: [HouseholdAction] = []
        var advertiser: RunningDiscovery?
        /// Advertise as `Google-Cast-Group-<hex>-1` (a leader move with a name conflict).
        var renamed = false
        /// Stopped while it was starting: stop it as soon as it is up.
        var stopRequested = false
    }

    private init(loop: any EventLoop, group: MultiThreadedEventLoopGroup, template: SimulatorConfiguration,
                 devices: [String: CastSimulator], endpoints: NIOLockedValueBox<[String: CastSimulator]>) {
        self.loop = loop
        self.endpoints = endpoints
        self.group = group
        self.template = template
        var logger = template.logger
        // Its lines are the household's, not the first device's.
        logger[metadataKey: "device"] = "household"
        self.logger = logger
        self.devices = devices
        deviceIds = Dictionary(devices.map { ($0.value.configuration.device.identity.friendlyName, $0.key) }) { first, _ in first }
    }

    /// Joins `devices` into a household with `groups`, on `group`'s loop (where the devices run).
    static func start(devices simulators: [CastSimulator], groups declarations: [GroupDeclaration], group: MultiThreadedEventLoopGroup,
                      template: SimulatorConfiguration, endpoints: NIOLockedValueBox<[String: CastSimulator]>) async throws
        -> NIOLoopBound<HouseholdRuntime>
    {
        let loop = simulators[0].runner.eventLoop
        let devices = Dictionary(simulators.map { ($0.configuration.device.identity.uuid, $0) }) { first, _ in first }
        return try await loop.submit {
            let runtime = HouseholdRuntime(loop: loop, group: group, template: template, devices: devices, endpoints: endpoints)
            let bound = NIOLoopBound(runtime, eventLoop: loop)
            for simulator in simulators {
                runtime.household.addDevice(simulator.configuration.device)
            }
            for declaration in declarations {
                try runtime.create(declaration, leader: declaration.leader)
            }
            // Last: steps that fired while the devices started run now, with the groups there.
            for simulator in simulators {
                let id = simulator.configuration.device.identity.uuid
                simulator.runner.value.attach(DeviceHousehold(
                    heard: { event in bound.value.heard(event, from: .device(id)) },
                    perform: { step throws(HouseholdRefusal) in try bound.value.perform(step, by: id) }))
            }
            return bound
        }.get()
    }

    // MARK: What the scenario and the control API do

    /// A household step of the device `deviceId`'s timeline (or its control API's `act`);
    /// refused, with nothing done, when it cannot be done now.
    private func perform(_ step: HouseholdStep, by deviceId: String) throws(HouseholdRefusal) {
        guard !stopping, let simulator = devices[deviceId], let state = household.devices[deviceId] else {
            throw HouseholdRefusal("the household is stopping")
        }
        let name = simulator.configuration.device.identity.friendlyName
        func attempt(_ change: () throws(HouseholdError) -> [HouseholdAction]) throws(HouseholdRefusal) -> [HouseholdAction] {
            do {
                return try change()
            } catch {
                throw HouseholdRefusal(error.description)
            }
        }
        switch step {
        case .offline:
            guard state.isOnline else { throw HouseholdRefusal("\(name) is offline already") }
            let actions = try attempt { () throws(HouseholdError) in try household.deviceWentOffline(deviceId) }
            logger.notice("\(name) goes offline")
            // As if powered off: out of discovery, its connections gone, its Cast port refusing.
            simulator.runner.value.apply(.advertise(.withdraw))
            simulator.runner.value.closeEveryConnection(because: "the device went offline")
            serialize(simulator) { await simulator.stopListening() }
            carryOut(actions)
        case .online:
            guard !state.isOnline else { throw HouseholdRefusal("\(name) is online already") }
            let actions = try attempt { () throws(HouseholdError) in try household.deviceCameOnline(deviceId) }
            logger.notice("\(name) is back online")
            let logger = self.logger
            let loop = self.loop
            let runner = simulator.runner
            serialize(simulator) {
                do {
                    _ = try await simulator.moveCastPort(to: simulator.configuration.host)
                } catch {
                    logger.error("\(name) cannot listen again: \(error)")
                }
                // Announced once it listens.
                try? await loop.submit { runner.value.apply(.advertise(.restore(host: nil, port: nil))) }.get()
            }
            carryOut(actions)
        case .leadGroup(let groupName, let rename):
            let groupId = try group(named: groupName)
            let actions = try attempt { () throws(HouseholdError) in try household.moveLeader(of: groupId, to: deviceId) }
            logger.notice("\(name) takes over the lead of group \"\(groupName)\"\(rename ? " (announced as -1)" : "")")
            if rename { groupEndpoints[groupId]?.renamed = true }
            carryOut(actions)
        case .createGroup(let declaration):
            try create(declaration, leader: name)
        case .deleteGroup(let groupName):
            let groupId = try group(named: groupName)
            let actions = try attempt { () throws(HouseholdError) in try household.deleteGroup(groupId) }
            logger.notice("group \"\(groupName)\" deleted")
            carryOut(actions)
        case .transferSession(let targetName):
            try transferSession(from: simulator, to: targetName)
        }
    }

    /// Stream transfer as a controller does it (docs/protocol/media.md §7): the source's
    /// session state (what STORE_SESSION answers) is resumed on the target in the same app,
    /// then the source's app stops. Refused, nothing done, when either side cannot.
    private func transferSession(from source: CastSimulator, to targetName: String) throws(HouseholdRefusal) {
        let sourceName = source.configuration.device.identity.friendlyName
        guard let targetId = deviceIds[targetName], let target = devices[targetId] else {
            throw HouseholdRefusal("no device \"\(targetName)\" in the household", namesNothing: true)
        }
        guard target !== source else { throw HouseholdRefusal("\(sourceName) cannot transfer its session to itself") }
        guard household.devices[targetId]?.isOnline == true else { throw HouseholdRefusal("\(targetName) is offline") }
        let snapshot = source.runner.value.snapshot
        guard let app = snapshot.runningApp, let state = snapshot.media?.sessionState else {
            throw HouseholdRefusal("\(sourceName) plays nothing to transfer")
        }
        logger.notice("\(sourceName)'s session (\(app.displayName)) moves to \(targetName)")
        target.runner.value.apply(.resumeSession(appId: app.appId, sessionState: state, from: sourceName))
        source.runner.value.apply(.sessionMovedAway(to: targetName))
    }

    /// The UUID of the household's group called `name`.
    private func group(named name: String) throws(HouseholdRefusal) -> String {
        if let group = household.groups.values.first(where: { $0.name == name }) { return group.uuid }
        let names = household.groups.values.map(\.name).sorted()
        throw HouseholdRefusal("no group \"\(name)\"; the groups are \(names.isEmpty ? "none" : names.map { "\"\($0)\"" }.joined(separator: ", "))", namesNothing: true)
    }

    private func create(_ declaration: GroupDeclaration, leader: String) throws(HouseholdRefusal) {
        func id(_ name: String) throws(HouseholdRefusal) -> String {
            guard let id = deviceIds[name] else { throw HouseholdRefusal("no device \"\(name)\" in the household", namesNothing: true) }
            return id
        }
        guard !household.groups.values.contains(where: { $0.name == declaration.name }) else {
            throw HouseholdRefusal("a group \"\(declaration.name)\" exists already")
        }
        if let other = household.groups.values.first(where: { $0.port == declaration.port }) {
            throw HouseholdRefusal("port \(declaration.port) is group \"\(other.name)\"'s already")
        }
        var members: [String] = []
        for member in declaration.members { members.append(try id(member)) }
        let leaderId = try id(leader)
        let actions: [HouseholdAction]
        do {
            actions = try household.createGroup(uuid: declaration.uuid, name: declaration.name, members: members, leader: leaderId,
                                                port: declaration.port, stereoPair: declaration.stereoPair)
        } catch {
            throw HouseholdRefusal(error.description)
        }
        logger.notice("group \"\(declaration.name)\" (\(declaration.members.joined(separator: ", "))) on port \(declaration.port), led by \(leader)")
        carryOut(actions)
    }

    /// Runs `work` on `simulator`'s listeners after what was asked of them before.
    private func serialize(_ simulator: CastSimulator, _ work: @escaping @Sendable () async -> Void) {
        let key = ObjectIdentifier(simulator)
        let previous = listenerWork[key]
        let task = track { await previous?.value; await work() }
        listenerWork[key] = task
    }

    /// Starts `work`, kept until it ends so that ``stop()`` can wait for it.
    @discardableResult
    private func track(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        lastTask += 1
        let number = lastTask
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        let task = Task {
            await work()
            loop.execute { _ = bound.value.inFlight.removeValue(forKey: number) }
        }
        inFlight[number] = task
        return task
    }

    // MARK: Events through the household

    private func heard(_ event: DeviceEvent, from endpoint: HouseholdEndpoint) {
        events.append((event, endpoint))
        guard !draining else { return }
        draining = true
        // An input applied here raises events that land in the queue: handled in order,
        // one at a time, never re-entering the household.
        while let (event, endpoint) = events.popFirst() {
            carryOut(household.handle(event, from: endpoint))
        }
        draining = false
    }

    private func carryOut(_ actions: [HouseholdAction]) {
        for action in actions {
            switch action {
            case .multizone(_, to: .device(let id)), .operatorInput(_, to: .device(let id)):
                guard let runner = devices[id]?.runner.value else { continue }
                apply(action, to: runner)
            case .multizone(_, to: .group(let id)), .operatorInput(_, to: .group(let id)):
                guard let endpoint = groupEndpoints[id] else { continue }
                if let simulator = endpoint.simulator {
                    apply(action, to: simulator.runner.value)
                } else {
                    groupEndpoints[id]!.waiting.append(action)
                }
            case .startGroupEndpoint(let groupId, let leaderId, let port, let configuration):
                startEndpoint(groupId, leaderId: leaderId, port: port, configuration: configuration)
            case .stopGroupEndpoint(let groupId):
                stopEndpoint(groupId)
            case .moveGroupEndpoint(let groupId, let leaderId, _):
                moveEndpoint(groupId, to: leaderId)
            }
        }
    }

    private func apply(_ action: HouseholdAction, to runner: DeviceRunner) {
        switch action {
        case .multizone(let input, _): runner.apply(input)
        case .operatorInput(let input, _): runner.apply(input)
        default: break
        }
    }

    // MARK: Group endpoints

    private func host(of deviceId: String) -> String {
        devices[deviceId]?.configuration.host ?? template.host
    }

    private func startEndpoint(_ groupId: String, leaderId: String, port: Int, configuration device: DeviceConfiguration) {
        guard !stopping else { return }
        let host = host(of: leaderId)
        lastGeneration += 1
        let generation = lastGeneration
        groupEndpoints[groupId] = GroupEndpoint(simulator: nil, generation: generation, listeningHost: host, wantedHost: host, port: port,
                                                renamed: groupEndpoints[groupId]?.renamed ?? false)
        var configuration = template
        configuration.scenario = .plain(device, name: device.identity.friendlyName)
        configuration.host = host
        configuration.castPort = port
        configuration.httpPort = nil
        configuration.httpsPort = nil
        // Advertised here, as the group (its leader's host, the multizone bit), not as a device.
        configuration.discovery = .off
        configuration.logger[metadataKey: "device"] = "\(device.identity.friendlyName)"
        let bound = NIOLoopBound(self, eventLoop: loop)
        let group = self.group
        let loop = self.loop
        let startWith = configuration
        track {
            let started: Result<CastSimulator, any Error>
            do {
                started = .success(try await CastSimulator.start(startWith, sharing: group))
            } catch {
                started = .failure(error)
            }
            loop.execute { bound.value.endpointStarted(groupId, generation: generation, started) }
        }
    }

    private func endpointStarted(_ groupId: String, generation: Int, _ result: Result<CastSimulator, any Error>) {
        let current = groupEndpoints[groupId]?.generation == generation
        switch result {
        case .failure(let error):
            // The household still thinks it runs: its members' eureka_info list a port
            // nobody listens on, as a real group with a failing leader would.
            logger.error("group \(groupId): its endpoint did not start: \(error)")
            if current { groupEndpoints[groupId] = nil }
        case .success(let simulator):
            guard current, groupEndpoints[groupId]!.stopRequested == false, !stopping else {
                if current { groupEndpoints[groupId] = nil }
                track { await simulator.stop() }
                return
            }
            let bound = NIOLoopBound(self, eventLoop: loop)
            let runner = simulator.runner.value
            runner.attach(DeviceHousehold(
                heard: { event in bound.value.groupEndpointHeard(event, groupId: groupId, generation: generation) },
                perform: { _ throws(HouseholdRefusal) in
                    throw HouseholdRefusal("a speaker group's endpoint takes no household steps; name one of its members")
                }))
            groupEndpoints[groupId]!.simulator = simulator
            endpoints.withLockedValue { $0[groupId] = simulator }
            logger.info("group \"\(simulator.configuration.device.identity.friendlyName)\" listens on \(simulator.castAddress.hostAndPort)")
            let waiting = groupEndpoints[groupId]!.waiting
            groupEndpoints[groupId]!.waiting = []
            for action in waiting { apply(action, to: runner) }
            // The leader may have moved while the endpoint started.
            let endpoint = groupEndpoints[groupId]!
            if endpoint.wantedHost != endpoint.listeningHost {
                moveEndpoint(groupId, toHost: endpoint.wantedHost)
            } else {
                advertise(groupId)
            }
        }
    }

    /// A group endpoint's event: to the household, and to its advertisement (`st`, `rs`).
    private func groupEndpointHeard(_ event: DeviceEvent, groupId: String, generation: Int) {
        guard let endpoint = groupEndpoints[groupId], endpoint.generation == generation else { return }
        if let advertiser = endpoint.advertiser, let runner = endpoint.simulator?.runner {
            advertiser.deviceEvent(event, snapshot: { runner.value.snapshot })
        }
        heard(event, from: .group(groupId))
    }

    private func stopEndpoint(_ groupId: String) {
        guard let endpoint = groupEndpoints[groupId] else { return }
        guard let simulator = endpoint.simulator else {
            groupEndpoints[groupId]!.stopRequested = true
            return
        }
        groupEndpoints[groupId] = nil
        endpoints.withLockedValue { _ = $0.removeValue(forKey: groupId) }
        simulator.runner.value.detachHousehold()
        logger.info("group \"\(simulator.configuration.device.identity.friendlyName)\" stops listening on \(simulator.castAddress.hostAndPort)")
        serialize(simulator) {
            await endpoint.advertiser?.shutDown()
            await simulator.stop()
        }
    }

    /// The group's endpoint moves to `host` (its new leader's), same port: its connections
    /// close, the old address refuses, the group is announced from the new leader.
    private func moveEndpoint(_ groupId: String, to leaderId: String) {
        moveEndpoint(groupId, toHost: host(of: leaderId))
    }

    private func moveEndpoint(_ groupId: String, toHost host: String) {
        guard let endpoint = groupEndpoints[groupId] else { return }
        groupEndpoints[groupId]!.wantedHost = host
        // Starting: endpointStarted moves it once it is up.
        guard let simulator = endpoint.simulator, host != endpoint.listeningHost else { return }
        groupEndpoints[groupId]!.listeningHost = host
        let old = endpoint.advertiser
        groupEndpoints[groupId]!.advertiser = nil
        if old != nil {
            simulator.runner.value.setDiscovery(.notAdvertised(.builtin, "the group moves to its new leader at \(host); announced from there once it listens"))
        }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        let logger = self.logger
        let generation = endpoint.generation
        serialize(simulator) {
            // The old leader says goodbye for the group before the new one announces it.
            await old?.shutDown()
            do {
                let address = try await simulator.moveCastPort(to: host)
                logger.notice("group \"\(simulator.configuration.device.identity.friendlyName)\" moved to \(address.hostAndPort)")
            } catch {
                logger.error("group \(groupId): cannot move to \(host): \(error)")
                return
            }
            loop.execute {
                guard bound.value.groupEndpoints[groupId]?.generation == generation,
                      bound.value.groupEndpoints[groupId]?.listeningHost == host else { return }
                bound.value.advertise(groupId)
            }
        }
    }

    /// Announces the group from its leader's address, if the fleet advertises at all.
    private func advertise(_ groupId: String) {
        guard let endpoint = groupEndpoints[groupId], let simulator = endpoint.simulator, endpoint.advertiser == nil,
              let group = household.groups[groupId], let leader = devices[group.leaderId] else { return }
        // The group's own endpoint runs with discovery off: its status is what this does.
        let runner = simulator.runner
        let interfaces: [String]
        switch template.discovery {
        case .off: return
        case .builtin(let names): interfaces = names
        case .avahi:
            // The Avahi backend publishes one service per device; groups need the built-in responder.
            let reason = "--mdns avahi publishes devices only; use --mdns builtin for groups"
            logger.warning("group \"\(group.name)\" is not advertised: \(reason)")
            runner.value.setDiscovery(.notAdvertised(.avahi, reason))
            return
        }
        if interfaces.isEmpty, SocketAddress.isLoopback(host: endpoint.listeningHost) {
            runner.value.setDiscovery(.notAdvertised(.builtin, "listening on loopback only (\(endpoint.listeningHost)), so not advertised"))
            return
        }
        let identity = simulator.configuration.device.identity
        var description = CastServiceDescription.group(
            uuid: groupId, name: group.name, modelName: identity.modelName, capabilities: identity.capabilityBits,
            leader: CastServiceDescription(leader.configuration.device, port: leader.castAddress.port ?? 8009), port: endpoint.port)
            // What it plays now (after a move, while the group plays: st=1).
            .following(simulator.runner.value.snapshot.runningApp)
        if endpoint.renamed { description.instanceOverride = description.instanceLabel + "-1" }
        let announced = description
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        let logger = self.logger
        let host = endpoint.listeningHost
        let generation = endpoint.generation
        track {
            do {
                let (advertiser, answering) = try await Advertiser.start(interfaceNames: interfaces, host: host, description: announced,
                                                                         loop: loop, logger: logger)
                loop.execute {
                    let runtime = bound.value
                    guard let current = runtime.groupEndpoints[groupId], current.generation == generation, current.listeningHost == host,
                          current.advertiser == nil, !runtime.stopping else {
                        runtime.track { try? await advertiser.eventLoop.flatSubmit { advertiser.value.shutDown() }.get() }
                        return
                    }
                    runtime.groupEndpoints[groupId]!.advertiser = .builtin(advertiser)
                    runner.value.setDiscovery(DiscoveryStatus(mode: .builtin, advertised: true, interfaces: answering))
                }
            } catch {
                logger.error("group \"\(announced.friendlyName)\" is not advertised: \(error)")
                let reason = "the mDNS responder could not start: \(error)"
                loop.execute { runner.value.setDiscovery(.notAdvertised(.builtin, reason)) }
            }
        }
    }

    // MARK: Queries

    /// The groups `deviceId` belongs to, for its eureka_info.
    func eurekaGroups(of deviceId: String) -> [EurekaGroup] {
        household.groupIds(containing: deviceId).compactMap { groupId in
            guard let group = household.groups[groupId], group.isEndpointRunning, household.devices[deviceId]?.isOnline == true else {
                return nil
            }
            let leader: EurekaGroup.Leader = group.leaderId == deviceId ? .this : .other(host: host(of: group.leaderId))
            return EurekaGroup(name: group.name, uuid: group.uuid, leader: leader, castPort: group.port, multichannel: group.isStereoPair)
        }
    }

    /// Stops every group endpoint once what is in flight has ended, and lets go of the
    /// devices; the devices are the fleet's to stop. The closure returns once no work of
    /// the household is left, what that work started meanwhile included (a start that
    /// lands while stopping stops what it started): the fleet's loop can go after it.
    func stop() -> @Sendable () async -> Void {
        stopping = true
        for simulator in devices.values { simulator.runner.value.detachHousehold() }
        var stops: [@Sendable () async -> Void] = []
        for endpoint in groupEndpoints.values {
            guard let simulator = endpoint.simulator else { continue }
            simulator.runner.value.detachHousehold()
            let advertiser = endpoint.advertiser
            stops.append {
                await advertiser?.shutDown()
                await simulator.stop()
            }
        }
        groupEndpoints.removeAll()
        endpoints.withLockedValue { $0.removeAll() }
        let pending = Array(inFlight.values)
        let groupStops = stops
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        return {
            // A start in flight stops what it started itself (`stopping`).
            for task in pending { await task.value }
            for stop in groupStops { await stop() }
            // And whatever that work started in turn.
            while let left = try? await loop.submit({ Array(bound.value.inFlight.values) }).get(), !left.isEmpty {
                for task in left { await task.value }
            }
        }
    }
}
