import CastDevice
import CastDiscovery
import CastScenario
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A household's speaker groups at work (castv2-groups.md): the pure ``Household`` decides
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
    /// Names in scenario steps, to UUIDs.
    private let deviceIds: [String: String]
    private var groupIds: [String: String] = [:]
    private var events = CircularBuffer<(DeviceEvent, HouseholdEndpoint)>()
    private var draining = false
    private var stopping = false
    /// The running group endpoints (for the control API), updated as they come and go.
    private let endpoints: NIOLockedValueBox<[String: CastSimulator]>

    /// A group's endpoint: starting (no simulator yet), running, or moving.
    private struct GroupEndpoint {
        var simulator: CastSimulator?
        /// The address it listens at, or is starting or moving to.
        var host: String
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
                let id = simulator.configuration.device.identity.uuid
                runtime.household.addDevice(simulator.configuration.device)
                let runner = simulator.runner.value
                runner.eventListeners.append { event in bound.value.heard(event, from: .device(id)) }
                runner.householdSteps = { step in bound.value.perform(step, by: id) }
            }
            for declaration in declarations {
                try runtime.create(declaration, leader: declaration.leader)
            }
            return bound
        }.get()
    }

    // MARK: What the scenario and the control API do

    /// A household step of the device `deviceId`'s timeline (or its control API's `act`).
    private func perform(_ step: HouseholdStep, by deviceId: String) {
        let name = devices[deviceId]?.configuration.device.identity.friendlyName ?? deviceId
        do throws(HouseholdError) {
            switch step {
            case .offline:
                guard household.devices[deviceId]?.isOnline == true, let simulator = devices[deviceId] else { return }
                logger.notice("\(name) goes offline")
                // As if powered off: out of discovery, its connections gone, its Cast port refusing.
                simulator.runner.value.apply(.advertise(.withdraw))
                simulator.runner.value.closeEveryConnection(because: "the device went offline")
                Task { await simulator.stopListening() }
                carryOut(try household.deviceWentOffline(deviceId))
            case .online:
                guard household.devices[deviceId]?.isOnline == false, let simulator = devices[deviceId] else { return }
                logger.notice("\(name) is back online")
                let logger = self.logger
                Task {
                    do {
                        _ = try await simulator.moveCastPort(to: simulator.configuration.host)
                    } catch {
                        logger.error("\(name) cannot listen again: \(error)")
                    }
                }
                simulator.runner.value.apply(.advertise(.restore(host: nil, port: nil)))
                carryOut(try household.deviceCameOnline(deviceId))
            case .leadGroup(let groupName, let rename):
                guard let groupId = groupIds[groupName] else { throw .unknownGroup(groupName) }
                logger.notice("\(name) takes over the lead of group \"\(groupName)\"\(rename ? " (announced as -1)" : "")")
                if rename { groupEndpoints[groupId]?.renamed = true }
                carryOut(try household.moveLeader(of: groupId, to: deviceId))
            case .createGroup(let declaration):
                try create(declaration, leader: name)
            case .deleteGroup(let groupName):
                guard let groupId = groupIds[groupName] else { throw .unknownGroup(groupName) }
                logger.notice("group \"\(groupName)\" deleted")
                groupIds[groupName] = nil
                carryOut(try household.deleteGroup(groupId))
            }
        } catch {
            logger.warning("\(name): \(step) not done: \(error)")
        }
    }

    private func create(_ declaration: GroupDeclaration, leader: String) throws(HouseholdError) {
        func id(_ name: String) throws(HouseholdError) -> String {
            guard let id = deviceIds[name] else { throw .unknownDevice(name) }
            return id
        }
        var members: [String] = []
        for member in declaration.members { members.append(try id(member)) }
        logger.notice("group \"\(declaration.name)\" (\(declaration.members.joined(separator: ", "))) on port \(declaration.port), led by \(leader)")
        groupIds[declaration.name] = declaration.uuid
        carryOut(try household.createGroup(uuid: declaration.uuid, name: declaration.name, members: members, leader: try id(leader),
                                           port: declaration.port))
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
        groupEndpoints[groupId] = GroupEndpoint(simulator: nil, host: host, port: port,
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
        Task {
            let started: Result<CastSimulator, any Error>
            do {
                started = .success(try await CastSimulator.start(configuration, sharing: group))
            } catch {
                started = .failure(error)
            }
            loop.execute { bound.value.endpointStarted(groupId, started) }
        }
    }

    private func endpointStarted(_ groupId: String, _ result: Result<CastSimulator, any Error>) {
        switch result {
        case .failure(let error):
            logger.error("group \(groupId): its endpoint did not start: \(error)")
            groupEndpoints[groupId] = nil
        case .success(let simulator):
            guard groupEndpoints[groupId] != nil, groupEndpoints[groupId]!.stopRequested == false, !stopping else {
                Task { await simulator.stop() }
                groupEndpoints[groupId] = nil
                return
            }
            let bound = NIOLoopBound(self, eventLoop: loop)
            let runner = simulator.runner.value
            runner.eventListeners.append { event in bound.value.heard(event, from: .group(groupId)) }
            groupEndpoints[groupId]!.simulator = simulator
            endpoints.withLockedValue { $0[groupId] = simulator }
            logger.info("group \"\(simulator.configuration.device.identity.friendlyName)\" listens on \(simulator.castAddress.hostAndPort)")
            let waiting = groupEndpoints[groupId]!.waiting
            groupEndpoints[groupId]!.waiting = []
            for action in waiting { apply(action, to: runner) }
            // The leader may have moved while the endpoint started.
            if let leader = household.groups[groupId]?.leaderId, host(of: leader) != groupEndpoints[groupId]!.host {
                moveEndpoint(groupId, to: leader)
            } else {
                advertise(groupId)
            }
        }
    }

    private func stopEndpoint(_ groupId: String) {
        guard let endpoint = groupEndpoints[groupId] else { return }
        guard let simulator = endpoint.simulator else {
            groupEndpoints[groupId]!.stopRequested = true
            return
        }
        groupEndpoints[groupId] = nil
        endpoints.withLockedValue { _ = $0.removeValue(forKey: groupId) }
        logger.info("group \"\(simulator.configuration.device.identity.friendlyName)\" stops listening on \(simulator.castAddress.hostAndPort)")
        Task {
            await endpoint.advertiser?.shutDown()
            await simulator.stop()
        }
    }

    /// The group's endpoint moves to the leader's address, same port: its connections close,
    /// the old address refuses, the group is announced from the new leader.
    private func moveEndpoint(_ groupId: String, to leaderId: String) {
        guard let endpoint = groupEndpoints[groupId] else { return }
        let host = host(of: leaderId)
        groupEndpoints[groupId]!.host = host
        guard let simulator = endpoint.simulator else { return }  // endpointStarted moves it
        let old = endpoint.advertiser
        groupEndpoints[groupId]!.advertiser = nil
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        let logger = self.logger
        Task {
            // The old leader says goodbye for the group before the new one announces it.
            await old?.shutDown()
            do {
                let address = try await simulator.moveCastPort(to: host)
                logger.notice("group \"\(simulator.configuration.device.identity.friendlyName)\" moved to \(address.hostAndPort)")
            } catch {
                logger.error("group \(groupId): cannot move to \(host): \(error)")
            }
            loop.execute { bound.value.advertise(groupId) }
        }
    }

    /// Announces the group from its leader's address, if the fleet advertises at all.
    private func advertise(_ groupId: String) {
        guard let endpoint = groupEndpoints[groupId], let simulator = endpoint.simulator, endpoint.advertiser == nil,
              let group = household.groups[groupId], let leader = devices[group.leaderId] else { return }
        let interfaces: [String]
        switch template.discovery {
        case .off: return
        case .builtin(let names): interfaces = names
        case .avahi(let names):
            // The Avahi backend publishes one service per device; groups need the built-in responder.
            logger.warning("group \"\(group.name)\" is not advertised: --mdns avahi publishes devices only; use --mdns builtin for groups")
            _ = names
            return
        }
        if interfaces.isEmpty, SocketAddress.isLoopback(host: endpoint.host) { return }
        var description = CastServiceDescription.group(
            uuid: groupId, name: group.name, leader: CastServiceDescription(leader.configuration.device, port: leader.castAddress.port ?? 8009),
            port: endpoint.port)
        if endpoint.renamed { description.instanceOverride = description.instanceLabel + "-1" }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        let logger = self.logger
        let host = endpoint.host
        let runner = simulator.runner
        Task {
            do {
                let advertiser = try await Advertiser.start(interfaceNames: interfaces, host: host, description: description,
                                                            loop: loop, logger: logger)
                loop.execute {
                    let runtime = bound.value
                    guard runtime.groupEndpoints[groupId]?.simulator === simulator, !runtime.stopping else {
                        Task { try? await advertiser.eventLoop.flatSubmit { advertiser.value.shutDown() }.get() }
                        return
                    }
                    runtime.groupEndpoints[groupId]!.advertiser = .builtin(advertiser)
                    // `st` and `rs` follow the group's session.
                    runner.value.eventListeners.append { event in
                        guard bound.value.groupEndpoints[groupId]?.simulator === simulator else { return }
                        advertiser.value.deviceEvent(event, snapshot: { runner.value.snapshot })
                    }
                }
            } catch {
                logger.error("group \"\(description.friendlyName)\" is not advertised: \(error)")
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
            return EurekaGroup(name: group.name, uuid: group.uuid, leader: leader, castPort: group.port)
        }
    }

    /// Stops every group endpoint; the devices are the fleet's to stop.
    func stop() -> [@Sendable () async -> Void] {
        stopping = true
        var stops: [@Sendable () async -> Void] = []
        for endpoint in groupEndpoints.values {
            let advertiser = endpoint.advertiser
            if let simulator = endpoint.simulator {
                stops.append {
                    await advertiser?.shutDown()
                    await simulator.stop()
                }
            }
        }
        groupEndpoints.removeAll()
        endpoints.withLockedValue { $0.removeAll() }
        return stops
    }
}
