// libFuzzer target: recordings as castsim reads them (`castsim recording show`,
// `castsim scenario from-recording`, a file anyone may hand over with a bug report).
// Build and run with scripts/fuzz.sh; in a plain build this executable does nothing.
import CastScenario
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(UnsafeRawBufferPointer(start: start, count: count))
    // Refused with a line number, or read.
    guard let recording = try? Recording.read(data) else { return 0 }
    // What castsim writes it reads back as it was.
    let again = try? Recording.read(Data(recording.text().utf8))
    precondition(again?.events.count == recording.events.count, "a recording written out does not read back")
    _ = RecordingTranscript.lines(recording).count
    // Conversion answers or refuses; bounded so that one input stays quick.
    if recording.events.count <= 60 { _ = try? RecordingConverter.convert(recording) }
    return 0
}
