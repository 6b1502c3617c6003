"""castsim.castv2's hand-written CastMessage encoder against the generated protobuf code
(pychromecast's cast_channel_pb2): the same bytes both ways, so the Python tests' raw
senders say on the wire what a real sender says."""

from __future__ import annotations

import pytest
from castsim.castv2 import NS_DEVICE_AUTH, NS_RECEIVER, CastMessage
from pychromecast.generated import cast_channel_pb2 as pb

TEXT = CastMessage("sender-0", "receiver-0", NS_RECEIVER, '{"type":"GET_STATUS","requestId":1,"é":"ü"}')
BINARY = CastMessage("sender-1", "receiver-0", NS_DEVICE_AUTH, payload_binary=bytes(range(256)) * 3)


def generated(message: CastMessage) -> pb.CastMessage:
    proto = pb.CastMessage()
    proto.protocol_version = pb.CastMessage.CASTV2_1_0
    proto.source_id = message.source_id
    proto.destination_id = message.destination_id
    proto.namespace = message.namespace
    if message.payload_binary is not None:
        proto.payload_type = pb.CastMessage.BINARY
        proto.payload_binary = message.payload_binary
    else:
        proto.payload_type = pb.CastMessage.STRING
        proto.payload_utf8 = message.payload_utf8 or ""
    return proto


@pytest.mark.parametrize("message", [TEXT, BINARY], ids=["text", "binary"])
def test_the_same_bytes_as_the_generated_code(message: CastMessage) -> None:
    assert message.encode() == generated(message).SerializeToString()
    assert CastMessage.decode(generated(message).SerializeToString()) == message
