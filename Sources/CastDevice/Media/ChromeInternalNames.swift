/// The media request names of Chrome's page-side Cast SDK (docs/protocol/media.md §2.4).
/// Chrome rewrites them before they reach the wire; fx_cast forwards them unchanged, and
/// settles a request only on a MEDIA_STATUS with its requestId, so they are answered as
/// their standard twins.
extension RequestHeader {
    static let chromeInternalMediaTypes = ["MEDIA_GET_STATUS": "GET_STATUS", "MEDIA_SET_VOLUME": "SET_VOLUME", "STOP_MEDIA": "STOP"]

    /// The request with its standard name, if it came with a Chrome-internal one.
    var withStandardMediaType: RequestHeader {
        guard let standard = Self.chromeInternalMediaTypes[type] else { return self }
        return RequestHeader(type: standard, requestId: requestId, body: body)
    }
}
