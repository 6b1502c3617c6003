import ArgumentParser
import CastSimulator

/// `castsim version` (and `castsim --version`): the version and the commit castsim was
/// built from, `castsim 0.12.0 (a1b2c3d)`.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print castsim's version and the git commit it was built from.")

    /// `castsim 0.12.0 (a1b2c3d)`; `(a1b2c3d-dirty)` for a tree with changes, `(commit unknown)`
    /// for one built without git.
    static let line = "castsim \(CastsimVersion.current) (\(BuildCommit.description))"

    func run() {
        print(Self.line)
    }
}
