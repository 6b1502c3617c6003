import ArgumentParser

@main
struct CastsimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "castsim",
        abstract: "A simulated Google Cast device for testing Cast senders.",
        version: VersionCommand.line,
        subcommands: [RunCommand.self, RelayCommand.self, CtlCommand.self, ValidateCommand.self, SchemaCommand.self, CertsCommand.self,
                      RecordingCommand.self, ScenarioCommand.self, ProfilesCommand.self, VersionCommand.self],
        defaultSubcommand: RunCommand.self)
}
