import CastDevice
import CastWire
import HTTPTypes
import Hummingbird
import NIOCore

/// DIAL's UPnP device description, `/ssdp/device-desc.xml` on port 8008, as Cast firmware
/// served it until Chromecast Audio 1.28 (docs/protocol/castv2.md §5.7): DIAL-era senders
/// (node `chromecasts`, stream2chromecast) read the name, maker and model from it, and some
/// hid devices whose `manufacturer` was not "Google Inc.". The `Application-URL` header is
/// where DIAL's REST service would be.
enum DeviceDescription {
    static let path = "/ssdp/device-desc.xml"

    /// `authority`: the request's `Host`, which names the address the sender reached.
    static func response(_ identity: DeviceIdentity, authority: String) -> Response {
        let base = "http://\(authority)"
        let xml = """
            <?xml version="1.0"?>
            <root xmlns="urn:schemas-upnp-org:device-1-0">
              <specVersion><major>1</major><minor>0</minor></specVersion>
              <URLBase>\(XMLText.escaped(base))</URLBase>
              <device>
                <deviceType>urn:dial-multiscreen-org:device:dial:1</deviceType>
                <friendlyName>\(XMLText.escaped(identity.friendlyName))</friendlyName>
                <manufacturer>\(XMLText.escaped(identity.manufacturer))</manufacturer>
                <modelName>\(XMLText.escaped(identity.modelName))</modelName>
                <UDN>uuid:\(DeviceIdentity.dashed(identity.uuid))</UDN>
                <serviceList>
                  <service>
                    <serviceType>urn:dial-multiscreen-org:service:dial:1</serviceType>
                    <serviceId>urn:dial-multiscreen-org:serviceId:dial</serviceId>
                    <controlURL>/ssdp/notfound</controlURL>
                    <eventSubURL>/ssdp/notfound</eventSubURL>
                    <SCPDURL>/ssdp/notfound</SCPDURL>
                  </service>
                </serviceList>
              </device>
            </root>

            """
        return Response(status: .ok,
                        headers: [.contentType: "application/xml", HTTPField.Name("Application-URL")!: "\(base)/apps/"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
    }
}
