/// What stops a run, in a sentence for the person at the terminal.
struct LoadError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// A connection attempt that failed: where to, and why.
    static func cannotConnect(_ target: String, _ address: String, _ error: any Error) -> LoadError {
        LoadError("cannot connect to \(target) at \(address): \(error)")
    }
}
