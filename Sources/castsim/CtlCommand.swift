import ArgumentParser
import CastControl
import CastScenario
import CastWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// `castsim ctl VERB [ARGUMENTS]`: a small client of a running castsim's control API, for a
/// person at a terminal or a shell script.
struct CtlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Drive a running castsim through its control API.",
        discussion: """
            Verbs:
            \(CtlVerb.help)

            Answers are printed as JSON. The exit status is 0 on success, 1 when castsim \
            refuses the request or a verify does not pass (the reason goes to standard error), \
            2 when castsim cannot be reached, 64 when the command line is wrong (no such verb, \
            wrong arguments).
            """)

    @Option(help: "The control API's address (castsim's ready line says control=HOST:PORT). Default: $CASTSIM_CONTROL, else http://127.0.0.1:\(ControlConfiguration.defaultPort).")
    var url: String?

    @Option(help: "The control token (castsim run --control-token). Default: $CASTSIM_CONTROL_TOKEN.")
    var token: String?

    @Option(help: "The device of a fleet to act on: its name or UUID (`castsim ctl devices` lists them). Default: the first.")
    var device: String?

    @Argument(help: "A verb and its arguments, e.g. `state`, `pause`, `volume 0.3`, `advance 10m`, `verify '{\"message\": {\"type\": \"LOAD\"}}'`.")
    var words: [String]

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let address = url ?? environment["CASTSIM_CONTROL"] ?? "http://127.0.0.1:\(ControlConfiguration.defaultPort)"
        let target = address.hasPrefix("http://") ? address : "http://\(address)"
        guard let client = ControlClient(url: target, token: token ?? environment["CASTSIM_CONTROL_TOKEN"]) else {
            throw ValidationError("--url \(address): expected http://HOST:PORT")
        }
        var request: CtlVerb.Request
        switch Result(catching: { () throws(CtlVerb.Problem) in try CtlVerb.request(for: words) }) {
        case .success(let made): request = made
        case .failure(let problem): throw ValidationError(problem.description)
        }
        if let device { request.path = CtlVerb.path(request.path, device: device) }
        let reply: ControlClient.Reply
        do {
            if request.streams {
                // A stream's events are printed as they come, as bytes (a piece may end inside
                // a character), and none is kept: it runs for hours. A refusal's body (its
                // status not 2xx) is gathered instead, to be told as every verb's is.
                let received = NIOLockedValueBox((status: 0, refusal: ByteBuffer()))
                let refusal = try await client.exchange(request.method, request.path, body: nil, contentType: nil, headers: [],
                                                        onHead: { status in received.withLockedValue { $0.status = status } },
                                                        keepingBody: false) { chunk, _ in
                    received.withLockedValue { received in
                        if (200..<300).contains(received.status) {
                            FileHandle.standardOutput.write(Data(chunk.readableBytesView))
                        } else {
                            received.refusal.writeImmutableBuffer(chunk)
                        }
                    }
                    return false
                }
                guard !(200..<300).contains(refusal.status) else { return }
                var refused = refusal
                refused.body = received.withLockedValue { String(buffer: $0.refusal) }
                reply = refused
            } else {
                reply = try await client.request(request.method, request.path, body: request.body,
                                                 contentType: request.body == nil ? nil : "application/json")
            }
        } catch {
            Self.fail("cannot reach castsim's control API at \(target): \(error) (is castsim running? --url)", status: 2)
        }
        guard (200..<300).contains(reply.status) else {
            var lines = ["castsim ctl: \(reply.status): \(reply.error ?? reply.body)"]
            for issue in reply.json["issues"]?.arrayValue ?? [] {
                lines.append("  \(issue["path"]?.stringValue ?? ""): \(issue["message"]?.stringValue ?? "")")
            }
            Self.fail(lines.joined(separator: "\n"), status: 1)
        }
        if !reply.body.isEmpty { print(Self.pretty(reply)) }
        if request.path.hasSuffix("/verify"), reply.json["passed"] != .bool(true) {
            Self.fail("castsim ctl: verify failed: \(reply.json["message"]?.stringValue ?? "")", status: 1)
        }
    }

    /// JSON indented for a person; anything else as it came.
    static func pretty(_ reply: ControlClient.Reply) -> String {
        guard reply.headers["content-type"]?.hasPrefix("application/json") == true, reply.json != .null else {
            return reply.body.hasSuffix("\n") ? String(reply.body.dropLast()) : reply.body
        }
        return reply.json.indentedJSONText()
    }

    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(status)
    }
}

/// The verbs of `castsim ctl`, each turned into one request of the control API.
enum CtlVerb {
    struct Request: Equatable {
        var method: HTTPMethod
        var path: String
        var body: String?
        /// The event stream: printed as it comes.
        var streams = false
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static let api = "/api/v1"

    /// `path` for one device of a fleet: `?device=NAME` (percent-encoded) added to its query.
    static func path(_ path: String, device: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        let name = device.addingPercentEncoding(withAllowedCharacters: allowed) ?? device
        return path + (path.contains("?") ? "&" : "?") + "device=" + name
    }

    /// Verb, arguments, what it does: the help and the parser's one list.
    static let verbs: [(verb: String, arguments: String, summary: String)] = [
        ("state", "", "the device as senders see it, and more"),
        ("journal", "[KEY=VALUE...]", "messages of both directions (type=LOAD direction=in namespace=media limit=20 ...)"),
        ("unhandled", "", "messages no handler took"),
        ("clear-journal", "", "forget the journal's messages"),
        ("verify", "JSON", "check the journal: {\"message\": PATTERN, \"count\": N} or {\"sequence\": [PATTERNS]}"),
        ("act", "JSON", "one scenario timeline action now, e.g. {\"remote\": \"pause\"}"),
        ("play", "", "the remote's play key"),
        ("pause", "", "the remote's pause key"),
        ("stop", "", "the remote's stop key"),
        ("next", "", "the remote's next key (the queue's next item)"),
        ("previous", "", "the remote's previous key"),
        ("volume", "LEVEL", "device volume, 0 to 1"),
        ("mute", "", "mute the device"),
        ("unmute", "", "unmute the device"),
        ("buffering", "DURATION", "the player stalls this long"),
        ("error", "[CODE]", "the player fails (detailedErrorCode CODE)"),
        ("standby", "on|off", "the TV goes into or out of standby"),
        ("input", "on|off", "the TV shows the device's HDMI input, or another one (isActiveInput false)"),
        ("launch", "APPID", "launch an app as from the TV's menu"),
        ("stop-app", "", "quit the running app"),
        ("withdraw", "", "vanish from mDNS"),
        ("restore", "[HOST][:PORT]", "come back on mDNS, maybe elsewhere"),
        ("device-auth", "MODE", "answer device auth with dev-root, self-signed, error or ignore"),
        ("advance", "DURATION", "move a manual clock forward"),
        ("clock", "", "the clock's mode and time"),
        ("load", "FILE", "run this scenario file from its start"),
        ("scenario", "", "the scenario running"),
        ("reset", "", "start the scenario again (closes sender connections)"),
        ("report", "[junit]", "the scenario report (JSON, or JUnit XML)"),
        ("events", "", "follow the event stream (Server-Sent Events) until interrupted"),
        ("devices", "", "every device castsim runs (a fleet), with its addresses"),
    ]

    static var help: String {
        verbs.map { "  \(($0.verb + " " + $0.arguments).padding(toLength: 24, withPad: " ", startingAt: 0)) \($0.summary)" }
            .joined(separator: "\n")
    }

    static func request(for words: [String]) throws(Problem) -> Request {
        guard let verb = words.first else { throw Problem(description: "expected a verb: \(verbs.map(\.verb).joined(separator: ", "))") }
        let arguments = Array(words.dropFirst())
        guard let entry = verbs.first(where: { $0.verb == verb }) else {
            throw Problem(description: "unknown verb \"\(verb)\"; expected one of \(verbs.map(\.verb).joined(separator: ", "))")
        }
        func none() throws(Problem) {
            if !arguments.isEmpty { throw Problem(description: "\(verb) takes no arguments, got \(arguments.joined(separator: " "))") }
        }
        func one() throws(Problem) -> String {
            guard arguments.count == 1 else { throw Problem(description: "usage: castsim ctl \(verb) \(entry.arguments)") }
            return arguments[0]
        }
        func act(_ action: JSONValue) -> Request { Request(method: .POST, path: "\(api)/act", body: action.jsonText()) }
        func duration(_ text: String) throws(Problem) -> String {
            if case .failure(let error) = ScenarioDuration.read(text) { throw Problem(description: "\(verb) \(error)") }
            return text
        }
        switch verb {
        case "state": try none(); return Request(method: .GET, path: "\(api)/state")
        case "devices": try none(); return Request(method: .GET, path: "\(api)/devices")
        case "unhandled": try none(); return Request(method: .GET, path: "\(api)/journal/unhandled")
        case "clear-journal": try none(); return Request(method: .DELETE, path: "\(api)/journal")
        case "clock": try none(); return Request(method: .GET, path: "\(api)/clock")
        case "scenario": try none(); return Request(method: .GET, path: "\(api)/scenario")
        case "reset": try none(); return Request(method: .POST, path: "\(api)/reset")
        case "events": try none(); return Request(method: .GET, path: "\(api)/events", streams: true)
        case "journal":
            var query: [String] = []
            for argument in arguments {
                let parts = argument.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty else { throw Problem(description: "journal \(argument): expected KEY=VALUE, e.g. type=LOAD") }
                query.append("\(percentEncoded(String(parts[0])))=\(percentEncoded(String(parts[1])))")
            }
            return Request(method: .GET, path: "\(api)/journal" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
        case "verify", "act":
            let text = try one()
            guard (try? JSONValue.parse(Array(text.utf8), limits: .document)) != nil else {
                throw Problem(description: "\(verb): expected one JSON argument (quote it for the shell), got \(text)")
            }
            return Request(method: .POST, path: "\(api)/\(verb)", body: text)
        case "play", "pause", "stop", "next", "previous": try none(); return act(["remote": .string(verb)])
        case "mute", "unmute": try none(); return act(["volume": ["muted": .bool(verb == "mute")]])
        case "volume":
            let text = try one()
            guard let level = Double(text), (0...1).contains(level) else { throw Problem(description: "volume \(text): expected a level from 0 to 1") }
            return act(["volume": ["level": .number(level)]])
        case "buffering": return act(["buffering": .string(try duration(try one()))])
        case "error":
            guard arguments.count <= 1 else { throw Problem(description: "usage: castsim ctl error [CODE]") }
            guard let text = arguments.first else { return act(["playerError": [:]]) }
            guard let code = Int(text) else { throw Problem(description: "error \(text): expected a detailedErrorCode (an integer)") }
            return act(["playerError": ["detailedErrorCode": .number(Double(code))]])
        case "input":
            let text = try one()
            guard text == "on" || text == "off" else { throw Problem(description: "input \(text): expected on or off") }
            return act(["activeInput": .bool(text == "on")])
        case "standby":
            let text = try one()
            guard text == "on" || text == "off" else { throw Problem(description: "standby \(text): expected on or off") }
            return act(["standby": .bool(text == "on")])
        case "launch": return act(["launchApp": .string(try one())])
        case "stop-app": try none(); return act(["stopApp": true])
        case "withdraw": try none(); return act(["withdraw": true])
        case "restore":
            guard arguments.count <= 1 else { throw Problem(description: "usage: castsim ctl restore [HOST][:PORT]") }
            guard let text = arguments.first else { return act(["restore": true]) }
            var target: [String: JSONValue] = [:]
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count > 2 { throw Problem(description: "restore \(text): expected HOST, :PORT or HOST:PORT") }
            if let host = parts.first, !host.isEmpty { target["host"] = .string(String(host)) }
            if parts.count == 2 {
                guard let port = Int(parts[1]), (1...65535).contains(port) else { throw Problem(description: "restore \(text): expected a port 1-65535") }
                target["port"] = .number(Double(port))
            }
            return act(["restore": .object(target)])
        case "device-auth": return act(["deviceAuth": .string(try one())])
        case "advance":
            return Request(method: .POST, path: "\(api)/clock/advance", body: JSONValue.object(["by": .string(try duration(try one()))]).jsonText())
        case "load":
            let file = try one()
            guard let data = FileManager.default.contents(atPath: file) else { throw Problem(description: "load \(file): cannot read the file") }
            return Request(method: .PUT, path: "\(api)/scenario", body: String(decoding: data, as: UTF8.self))
        case "report":
            guard arguments.count <= 1, arguments.first.map({ $0 == "junit" }) ?? true else {
                throw Problem(description: "usage: castsim ctl report [junit]")
            }
            return Request(method: .GET, path: "\(api)/report" + (arguments.isEmpty ? "" : "?format=junit"))
        default:
            throw Problem(description: "unknown verb \"\(verb)\"")
        }
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))) ?? text
    }
}
