import ArgumentParser
import CastCredentials
import Foundation

/// `castsim certs generate`: the developer PKI that device authentication chains to.
struct CertsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Make the developer PKI (root CA → intermediate CA → device certificate) device auth chains to.",
        subcommands: [Generate.self])

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new developer PKI: root, intermediate and device certificates and their RSA keys (keys 0600).",
            discussion: """
                Files: root.crt (what senders trust: Chrome --cast-developer-certificate-path, \
                Open Screen's sender -d), root.key, intermediate.crt, intermediate.key, device.crt, \
                device.key. `castsim run --certs DIR` answers device auth with them.
                """)

        @Option(help: "The directory to write the six files into (created if missing).")
        var out: String

        @Flag(help: "Replace the files if the directory already holds some.")
        var force = false

        func run() async throws {
            let directory = URL(fileURLWithPath: out)
            let pki = try await DeveloperPKI.generate()
            do {
                try pki.write(to: directory, overwrite: force)
            } catch {
                throw ValidationError(error.description)
            }
            print("wrote a developer PKI to \(directory.path):")
            for file in DeveloperPKI.File.allCases { print("  \(file.rawValue)") }
            print("root SHA-256 fingerprint \(pki.root.fingerprint)")
        }
    }
}

/// Which developer PKI `castsim run` uses: `--certs DIR`; else the repository's `certs/`
/// when castsim runs from a checkout; else one kept in the user's state directory, made
/// on first use, so the device's identity is the same from run to run.
enum PKILocation {
    enum Origin: CustomStringConvertible {
        case given(URL), repository(URL), state(URL, generated: Bool)

        var description: String {
            switch self {
            case .given(let url): "--certs \(url.path)"
            case .repository(let url): "the repository's \(url.path)"
            case .state(let url, let generated): "\(url.path)\(generated ? " (generated now)" : "")"
            }
        }
    }

    static func resolve(given: String?) async throws -> (DeveloperPKI, Origin) {
        if let given {
            let url = URL(fileURLWithPath: given)
            return (try load(url, flag: "--certs"), .given(url))
        }
        if let url = repositoryCertificates() {
            return (try load(url, flag: "the repository's certs/"), .repository(url))
        }
        let url = stateDirectory()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent(DeveloperPKI.File.rootCertificate.rawValue).path) {
            return (try load(url, flag: "the state directory"), .state(url, generated: false))
        }
        let pki = try await DeveloperPKI.generate()
        do {
            try pki.write(to: url)
        } catch {
            throw ValidationError("cannot keep a developer PKI in \(url.path): \(error.description); pass --certs DIR")
        }
        return (pki, .state(url, generated: true))
    }

    private static func load(_ url: URL, flag: String) throws -> DeveloperPKI {
        do {
            return try DeveloperPKI.load(from: url)
        } catch {
            throw ValidationError("\(flag): \(error.description)")
        }
    }

    /// `certs/` beside the Package.swift of a checkout that holds the working directory or
    /// the castsim executable (`.build/debug/castsim`).
    static func repositoryCertificates() -> URL? {
        let manager = FileManager.default
        var starts = [URL(fileURLWithPath: manager.currentDirectoryPath)]
        if let executable = Bundle.main.executableURL { starts.append(executable.resolvingSymlinksInPath().deletingLastPathComponent()) }
        for start in starts {
            var directory = start.standardizedFileURL
            while true {
                let certs = directory.appendingPathComponent("certs")
                if manager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                   manager.fileExists(atPath: certs.appendingPathComponent(DeveloperPKI.File.rootCertificate.rawValue).path) {
                    return certs
                }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        return nil
    }

    /// `$XDG_STATE_HOME/castsim/certs`, else `$HOME/.local/state/castsim/certs` (the XDG
    /// default; Foundation's home directory is the password database's, which a CI job or
    /// a test that sets HOME does not change).
    static func stateDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        func directory(_ name: String) -> URL? { environment[name].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) } }
        let base = directory("XDG_STATE_HOME")
            ?? (directory("HOME") ?? FileManager.default.homeDirectoryForCurrentUser).appendingPathComponent(".local/state")
        return base.appendingPathComponent("castsim/certs")
    }
}
