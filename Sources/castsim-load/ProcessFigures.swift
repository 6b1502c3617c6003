#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What /proc says about a server process at one moment.
struct ServerSample: Sendable {
    /// utime + stime, in clock ticks.
    var cpuTicks: Int
    var rssKiB: Int
    /// Entries of /proc/PID/fd: sockets, the listener, pipes, files.
    var descriptors: Int
}

/// Reads the figures of a process from /proc (Linux), and the load generator's own CPU.
enum ProcessFigures {
    /// Clock ticks per second of /proc/PID/stat's times (100 almost everywhere: a tick is
    /// 10 ms, so a measured phase should last a good many of them).
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    static func sample(pid: Int32) throws -> ServerSample {
        ServerSample(cpuTicks: try cpuTicks(pid: pid), rssKiB: try rssKiB(pid: pid), descriptors: try descriptors(pid: pid))
    }

    /// utime + stime (fields 14 and 15) of /proc/PID/stat. The fields are counted after
    /// the command name's closing parenthesis: the name itself may hold spaces.
    static func cpuTicks(pid: Int32) throws -> Int {
        let text = try read("/proc/\(pid)/stat")
        guard let close = text.lastIndex(of: ")") else { throw LoadError("/proc/\(pid)/stat: unexpected format") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so field 14 is fields[11].
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw LoadError("/proc/\(pid)/stat: unexpected format")
        }
        return user + system
    }

    /// Nanoseconds each of a process's threads has run, by thread id, with its name:
    /// /proc/PID/task/TID/schedstat's first field, which the scheduler keeps to the
    /// nanosecond where /proc/PID/stat counts 10 ms ticks. A thread that ended since is not
    /// counted.
    static func threadRuntimes(pid: Int32) throws -> [Int: (name: String, nanoseconds: UInt64)] {
        let tasks: [String]
        do {
            tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        } catch {
            throw LoadError("cannot list /proc/\(pid)/task (is process \(pid) running, and ours?): \(error.localizedDescription)")
        }
        var runtimes: [Int: (name: String, nanoseconds: UInt64)] = [:]
        for task in tasks {
            // A thread may end between the listing and the reads: it is left out.
            guard let id = Int(task), let stat = try? read("/proc/\(pid)/task/\(task)/schedstat"),
                  let nanoseconds = stat.split(separator: " ").first.flatMap({ UInt64($0) }),
                  let name = try? read("/proc/\(pid)/task/\(task)/comm") else { continue }
            runtimes[id] = (name.trimmingCharacters(in: .newlines), nanoseconds)
        }
        return runtimes
    }

    /// VmRSS of /proc/PID/status, in KiB.
    static func rssKiB(pid: Int32) throws -> Int {
        let text = try read("/proc/\(pid)/status")
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            if let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) }) {
                return value
            }
        }
        throw LoadError("/proc/\(pid)/status has no VmRSS line")
    }

    static func descriptors(pid: Int32) throws -> Int {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        } catch {
            throw LoadError("cannot list /proc/\(pid)/fd (is process \(pid) running, and ours?): \(error.localizedDescription)")
        }
    }

    /// CPU seconds (user + system) the load generator itself has used, all threads.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw LoadError("cannot read \(path) (is the process running?): \(error.localizedDescription)")
        }
    }
}
