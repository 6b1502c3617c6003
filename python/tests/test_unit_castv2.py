"""castsim.castv2: the hand-made CastMessage encoding and its framing, against bytes
worked out from the protobuf wire format (tests/e2e/test_castv2_protobuf.py compares it
with the generated protobuf code, which the package does not depend on)."""

from __future__ import annotations

import struct

import pytest

from castsim.castv2 import (
    MAX_MESSAGE_SIZE,
    NS_CONNECTION,
    CastMessage,
    decode_varint,
    encode_varint,
    frame,
    frame_length,
)


@pytest.mark.parametrize(("value", "data"), [(0, b"\x00"), (1, b"\x01"), (127, b"\x7f"), (128, b"\x80\x01"),
                                             (300, b"\xac\x02"), (2**32, b"\x80\x80\x80\x80\x10")])
def test_varints(value, data):
    assert encode_varint(value) == data
    assert decode_varint(data, 0) == (value, len(data))


def test_connect_message_bytes():
    message = CastMessage("sender-0", "receiver-0", NS_CONNECTION, '{"type":"CONNECT"}')
    expected = (
        b"\x08\x00"                                   # 1: protocol_version CASTV2_1_0
        + b"\x12\x08sender-0"                         # 2: source_id
        + b"\x1a\x0areceiver-0"                       # 3: destination_id
        + b"\x22\x28" + NS_CONNECTION.encode()        # 4: namespace (40 bytes)
        + b"\x28\x00"                                 # 5: payload_type STRING
        + b"\x32\x12" + b'{"type":"CONNECT"}'         # 6: payload_utf8 (18 bytes)
    )
    assert len(NS_CONNECTION) == 40
    assert message.encode() == expected
    assert frame(message) == struct.pack(">I", len(expected)) + expected


def test_round_trip_text_and_binary():
    text = CastMessage("a", "b", "urn:x-cast:test", '{"type": "PING", "n": "\u00e9"}')
    again = CastMessage.decode(text.encode())
    assert again == text and again.data == {"type": "PING", "n": "\u00e9"}
    binary = CastMessage("a", "b", "urn:x-cast:com.google.cast.tp.deviceauth", payload_binary=b"\x00\x01" * 200)
    again = CastMessage.decode(binary.encode())
    assert again.payload_binary == b"\x00\x01" * 200 and again.payload_utf8 is None and again.data is None


def test_decode_skips_unknown_fields_and_rejects_truncation():
    data = CastMessage("a", "b", "ns", "{}").encode() + b"\x48\x05"  # field 9, varint
    assert CastMessage.decode(data).namespace == "ns"
    with pytest.raises(ValueError):
        CastMessage.decode(CastMessage("a", "b", "ns", "{}").encode()[:-1])


@pytest.mark.parametrize("data", [b"\x80", b"\xff" * 10 + b"\x01"])
def test_malformed_varints(data):
    with pytest.raises(ValueError):
        decode_varint(data, 0)


def test_negative_varints_are_refused():
    with pytest.raises(ValueError):
        encode_varint(-1)


def test_fixed_width_fields_are_skipped():
    data = CastMessage("a", "b", "ns", "{}").encode() + b"\x4d" + bytes(4) + b"\x51" + bytes(8)  # fields 9 (32-bit), 10 (64-bit)
    assert CastMessage.decode(data) == CastMessage("a", "b", "ns", "{}")
    with pytest.raises(ValueError, match="wire type"):
        CastMessage.decode(b"\x0b")  # field 1, wire type 3 (groups)


def test_a_binary_message_without_its_payload_has_an_empty_one():
    assert CastMessage.decode(b"\x28\x01").payload_binary == b""


def test_frame_length():
    assert frame_length(struct.pack(">I", 42)) == 42
    assert frame_length(struct.pack(">I", MAX_MESSAGE_SIZE)) == MAX_MESSAGE_SIZE
    with pytest.raises(ValueError, match="over"):
        frame_length(struct.pack(">I", MAX_MESSAGE_SIZE + 1))
    with pytest.raises(ValueError, match="4 bytes"):
        frame_length(b"\x00\x01")
