import CastSimulator
import CastDevice
import NIOCore
import Testing

@Suite("Simulation clock")
struct SimulationClockTests {
    let origin = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test("Real: simulation seconds are wall seconds since the start, and back")
    func real() {
        let clock = SimulationClock(mode: .real, origin: origin)
        #expect(clock.now(wall: origin + .seconds(3)) == SimTime(seconds: 3))
        #expect(clock.wallDeadline(for: SimTime(seconds: 3)) == origin + .seconds(3))
    }

    @Test("Scaled: ten times faster, both ways")
    func scaled() {
        let clock = SimulationClock(mode: .scaled(10), origin: origin)
        #expect(clock.now(wall: origin + .seconds(3)) == SimTime(seconds: 30))
        #expect(clock.wallDeadline(for: SimTime(seconds: 30)) == origin + .seconds(3))
    }

    @Test("Manual: only advance and jump move it; it never goes back; wall time means nothing")
    func manual() {
        var clock = SimulationClock(mode: .manual, origin: origin)
        #expect(clock.now(wall: origin + .seconds(100)) == .zero)
        #expect(clock.wallDeadline(for: SimTime(seconds: 1)) == nil)
        let advanced = clock.advance(by: 90)
        #expect(advanced)
        clock.jump(to: SimTime(seconds: 60))
        #expect(clock.now() == SimTime(seconds: 90))
        clock.jump(to: SimTime(seconds: 120))
        #expect(clock.now() == SimTime(seconds: 120))
        let backwards = clock.advance(by: -1)
        #expect(!backwards)
        var real = SimulationClock(mode: .real, origin: origin)
        let realAdvanced = real.advance(by: 5)
        #expect(!realAdvanced)
    }
}
