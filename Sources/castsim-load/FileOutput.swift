import Foundation

/// Lines written straight to the file descriptors: a parent process waits for the echo
/// server's ready line, and a buffered stdout would hold it back when it is a pipe.
enum FileOutput {
    static func standardOutput(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
