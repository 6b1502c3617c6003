/// One fuzz target: takes any bytes, and traps only on a defect it was written to find.
protocol FuzzTarget: SendableMetatype {
    static func run(_ input: UnsafeRawBufferPointer)
}

/// Every target, by the name scripts/fuzz.sh and Fuzz/Corpus/ know it by.
let fuzzTargets: [String: any FuzzTarget.Type] = [
    "FuzzFrames": FuzzFrames.self,
    "FuzzMessage": FuzzMessage.self,
    "FuzzJSON": FuzzJSON.self,
    "FuzzDevice": FuzzDevice.self,
    "FuzzDNS": FuzzDNS.self,
    "FuzzRecording": FuzzRecording.self,
]

/// Set once, before the first input (libFuzzer calls inputs one at a time on one thread).
nonisolated(unsafe) var selectedTarget: (any FuzzTarget.Type)?
