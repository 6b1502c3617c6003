// Recordings as castsim reads them (`castsim recording show`, `castsim scenario
// from-recording`, a file anyone may hand over with a bug report).
import CastScenario
import Foundation

enum FuzzRecording: FuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) {
        // Refused with a line number, or read.
        guard let recording = try? Recording.read(Data(input)) else { return }
        // What castsim writes it reads back as it was.
        let again = try? Recording.read(Data(recording.text().utf8))
        precondition(again?.events.count == recording.events.count, "a recording written out does not read back")
        _ = RecordingTranscript.lines(recording).count
        // Conversion answers or refuses; bounded so that one input stays quick.
        if recording.events.count <= 60 { _ = try? RecordingConverter.convert(recording) }
    }
}
