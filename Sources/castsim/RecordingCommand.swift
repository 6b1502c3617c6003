import ArgumentParser
import CastDevice
import CastScenario
import CastWire
import Foundation

/// `castsim recording show FILE`: a recording as a transcript a person reads.
struct RecordingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recording", abstract: "Read recordings (docs/recording.md).", subcommands: [Show.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print a recording as one line per event: time, direction (→ from a sender, ← from the device), connection, namespace, type and what matters in it.")

        @Argument(help: "A recording (castsim run --record FILE).")
        var file: String

        @Option(help: "Only messages on this namespace: connection, heartbeat, deviceauth, receiver, media, emp, or a full urn:x-cast: name.")
        var namespace: String?

        @Option(help: "Only messages of this type (LOAD, MEDIA_STATUS ...).")
        var type: String?

        @Option(help: "Only what concerns this connection id.")
        var connection: UInt64?

        @Option(help: "Only messages in this direction: in (from senders) or out (from the device).")
        var direction: JournalEntry.Direction?

        @Flag(name: .customLong("messages"), help: "Only messages: no connections, inputs, faults or clock moves.")
        var messagesOnly = false

        @Flag(name: .customLong("no-heartbeats"), help: "Leave PING and PONG out.")
        var noHeartbeats = false

        func run() throws {
            let recording = try RecordingFile.read(file)
            print(RecordingTranscript.headline(recording.header))
            let filter = RecordingTranscript.Filter(
                namespace: namespace, type: type, connection: connection.map(ConnectionID.init), direction: direction,
                messagesOnly: messagesOnly, hideHeartbeats: noHeartbeats)
            for line in RecordingTranscript.lines(recording, filter: filter) { print(line) }
        }
    }
}

extension JournalEntry.Direction: ExpressibleByArgument {}

/// `castsim scenario from-recording FILE`: a scenario that reproduces a recording.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario", abstract: "Make scenario files.", subcommands: [FromRecording.self])

    struct FromRecording: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "from-recording",
            abstract: "Print a scenario that makes castsim behave as the recorded device did, with expectations that each sender sends what it sent.")

        @Argument(help: "A recording (castsim run --record FILE, castsim relay --record FILE).")
        var file: String

        @Option(help: "The scenario's name. Default: \"replay of\" the recorded scenario or device.")
        var name: String?

        func run() throws {
            let recording = try RecordingFile.read(file)
            let result: RecordingConverter.Result
            do {
                result = try RecordingConverter.convert(recording, name: name)
            } catch {
                throw RecordingFile.Failure(description: "\(file): \(error)")
            }
            for warning in result.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
            FileHandle.standardError.write(Data(
                "\(file): \(recording.events.count) events; \(result.rulesAdded) requests answered as recorded, \(result.stepsAdded) steps\n".utf8))
            FileHandle.standardOutput.write(Data(result.text.utf8))
        }
    }
}

enum RecordingFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ path: String) throws -> Recording {
        let data: Data
        do {
            data = try FileContents.load(path)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
        do {
            return try Recording.read(data)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
    }
}
