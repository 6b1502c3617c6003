/// Why a frame or message was rejected. Each case closes only the connection it came from.
public enum CastWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 4-byte header declared a body larger than ``CastFraming/maxBodySize``.
    case frameTooLarge(declared: Int)
    /// A zero-length body: nothing to parse.
    case emptyFrame
    /// The body is not a valid `CastMessage` (bad protobuf, missing required field...).
    case invalidMessage(String)
    /// The connection ended in the middle of a frame.
    case truncatedFrame(expected: Int, received: Int)

    public var description: String {
        switch self {
        case .frameTooLarge(let declared):
            "frame declares \(declared) bytes, over the \(CastFraming.maxBodySize)-byte limit"
        case .emptyFrame:
            "frame with an empty body"
        case .invalidMessage(let reason):
            "body is not a valid CastMessage: \(reason)"
        case .truncatedFrame(let expected, let received):
            "connection ended inside a frame (\(received) of \(expected) bytes)"
        }
    }
}
