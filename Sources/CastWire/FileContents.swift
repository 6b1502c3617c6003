import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file a person named (a scenario, a recording), read whole, or why not in the system's
/// words: Foundation's reading called a directory "error 256" and /dev/null a matter of
/// permission.
package enum FileContents {
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var reason: String
        package var description: String { "cannot read the file: \(reason)" }
    }

    package static func load(_ path: String) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw Failure(reason: "it is a directory") }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: String(cString: strerror(errno)))
            }
            data.append(contentsOf: chunk[..<count])
        }
    }
}
