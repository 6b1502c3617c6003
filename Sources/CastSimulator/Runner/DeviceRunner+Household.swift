import CastDevice
import CastScenario

// A fleet's device in its household: the household hears the device's news, and carries
// out its household steps (offline, leadGroup ...).

extension DeviceRunner {
    /// The device joins `household`: it hears the device's events, and carries out its
    /// household steps, those that fired before now first.
    func attach(_ household: DeviceHousehold) {
        loop.preconditionInEventLoop()
        if let (_, old) = self.household { news.unsubscribe(old) }
        let subscription = news.subscribe { news in
            if case .event(let event) = news { household.heard(event) }
        }
        self.household = (household, subscription)
        let early = earlyHouseholdSteps
        earlyHouseholdSteps = []
        for step in early { perform(step) }
    }

    /// The household is gone (the fleet stops): nothing of it is kept.
    func detachHousehold() {
        loop.preconditionInEventLoop()
        if let (_, subscription) = household { news.unsubscribe(subscription) }
        household = nil
        earlyHouseholdSteps = []
    }

    /// A household step of the device's timeline: done by its household, kept for the
    /// household it is about to join, or logged as impossible.
    func perform(_ step: HouseholdStep) {
        if household != nil {
            do {
                try performNow(step)
            } catch {
                logger.warning("\(step) not done: \(error)")
            }
        } else if joinsHousehold {
            earlyHouseholdSteps.append(step)
        } else {
            logger.warning("\(step) is for a household (a scenario with devices); this device is in none")
        }
    }

    /// A household step from the control API: done by the household at once, or refused
    /// with its reason.
    func performNow(_ step: HouseholdStep) throws(ControlRefusal) {
        guard let (household, _) = household else {
            throw ControlRefusal.household("this device is in no household (castsim run --devices N, or a scenario with devices)")
        }
        do {
            try household.perform(step)
        } catch {
            throw ControlRefusal.household(error.description, namesNothing: error.namesNothing)
        }
    }
}
