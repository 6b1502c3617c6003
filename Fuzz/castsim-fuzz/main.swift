// The libFuzzer targets, in one executable: scripts/fuzz.sh builds it with the fuzzer and
// AddressSanitizer and links each target's name to it (`.build-fuzz/debug/FuzzJSON`), and
// the name it is started by picks the target. One executable links once, and its build is
// planned once, where six were six of each. In a plain build it does nothing.
//
// Declarations only: libFuzzer has the `main`, and the fuzzing build compiles this file as a
// library's (a statement at its top level is an error there).
import Foundation

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    let path = argv.pointee[0].map { String(cString: $0) } ?? ""
    let name = String(path.split(separator: "/").last ?? "")
    guard let target = fuzzTargets[name] else {
        let known = fuzzTargets.keys.sorted().joined(separator: ", ")
        FileHandle.standardError.write(Data("castsim-fuzz: started as \"\(name)\"; start it by a target's name (a link to it): \(known)\n".utf8))
        exit(2)
    }
    selectedTarget = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    // libFuzzer may hand an empty input with a null pointer.
    selectedTarget?.run(UnsafeRawBufferPointer(start: count == 0 ? nil : start, count: count))
    return 0
}
