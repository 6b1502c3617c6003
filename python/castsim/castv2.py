"""CASTV2 on the wire: the CastMessage protobuf, encoded by hand, and its 4-byte framing.

For tests that must say exactly what goes on the wire (a raw sender, a malformed
message, a device-auth challenge) without a protobuf library:

    CastMessage {
      protocol_version = 1  (varint, CASTV2_1_0 = 0)
      source_id        = 2  (string)
      destination_id   = 3  (string)
      namespace        = 4  (string)
      payload_type     = 5  (varint, STRING = 0, BINARY = 1)
      payload_utf8     = 6  (string)
      payload_binary   = 7  (bytes)
    }

Every frame is the message's length as a 4-byte big-endian integer, then the message
(at most 64 KiB). Fields are written in field order, as protobuf encoders do, so the
bytes equal those of the generated code (pychromecast's cast_channel_pb2).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

__all__ = [
    "CastMessage",
    "MAX_MESSAGE_SIZE",
    "NS_CONNECTION",
    "NS_DEVICE_AUTH",
    "NS_HEARTBEAT",
    "NS_MEDIA",
    "NS_RECEIVER",
    "PLATFORM_RECEIVER",
    "PLATFORM_SENDER",
    "decode_varint",
    "encode_varint",
    "frame",
    "frame_length",
]

NS_CONNECTION = "urn:x-cast:com.google.cast.tp.connection"
NS_HEARTBEAT = "urn:x-cast:com.google.cast.tp.heartbeat"
NS_DEVICE_AUTH = "urn:x-cast:com.google.cast.tp.deviceauth"
NS_RECEIVER = "urn:x-cast:com.google.cast.receiver"
NS_MEDIA = "urn:x-cast:com.google.cast.media"

PLATFORM_SENDER = "sender-0"
PLATFORM_RECEIVER = "receiver-0"

# A Cast device refuses a frame that announces more (docs/protocol/castv2.md §1.2).
MAX_MESSAGE_SIZE = 64 * 1024

_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5


def encode_varint(value: int) -> bytes:
    """An unsigned protobuf varint: 7 bits a byte, least significant first."""
    if value < 0:
        raise ValueError("varints here are unsigned")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def decode_varint(data: bytes, offset: int) -> Tuple[int, int]:
    """The varint at ``offset`` and the offset after it; ValueError when truncated or over 64 bits."""
    result = 0
    shift = 0
    while True:
        if offset >= len(data):
            raise ValueError("truncated varint")
        byte = data[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, offset
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _key(field_number: int, wire_type: int) -> bytes:
    return encode_varint(field_number << 3 | wire_type)


def _length_delimited(field_number: int, data: bytes) -> bytes:
    return _key(field_number, _LENGTH_DELIMITED) + encode_varint(len(data)) + data


@dataclass
class CastMessage:
    """One CastMessage: a STRING payload (``payload_utf8``, usually JSON) or a BINARY one
    (``payload_binary``, e.g. a DeviceAuthMessage)."""

    source_id: str
    destination_id: str
    namespace: str
    payload_utf8: Optional[str] = None
    payload_binary: Optional[bytes] = None
    protocol_version: int = 0

    @property
    def data(self) -> Any:
        """The parsed JSON payload (None for a binary or non-JSON one)."""
        if self.payload_utf8 is None:
            return None
        try:
            return json.loads(self.payload_utf8)
        except ValueError:
            return None

    def encode(self) -> bytes:
        binary = self.payload_binary is not None
        out = _key(1, _VARINT) + encode_varint(self.protocol_version)
        out += _length_delimited(2, self.source_id.encode())
        out += _length_delimited(3, self.destination_id.encode())
        out += _length_delimited(4, self.namespace.encode())
        out += _key(5, _VARINT) + encode_varint(1 if binary else 0)
        if binary:
            out += _length_delimited(7, self.payload_binary or b"")
        else:
            out += _length_delimited(6, (self.payload_utf8 or "").encode())
        return out

    @classmethod
    def decode(cls, data: bytes) -> "CastMessage":
        """Reads the fields it knows and skips the others; ValueError when malformed."""
        fields: Dict[int, Any] = {}
        offset = 0
        while offset < len(data):
            key, offset = decode_varint(data, offset)
            number, wire_type = key >> 3, key & 7
            if wire_type == _VARINT:
                value, offset = decode_varint(data, offset)
            elif wire_type == _LENGTH_DELIMITED:
                length, offset = decode_varint(data, offset)
                value, offset = _take(data, offset, length)
            elif wire_type == _FIXED32:
                value, offset = _take(data, offset, 4)
            elif wire_type == _FIXED64:
                value, offset = _take(data, offset, 8)
            else:
                raise ValueError(f"unsupported wire type {wire_type}")
            fields[number] = value

        def text(number: int) -> str:
            value = fields.get(number, b"")
            return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)

        binary = fields.get(5) == 1
        return cls(
            source_id=text(2),
            destination_id=text(3),
            namespace=text(4),
            payload_utf8=None if binary else text(6),
            payload_binary=fields.get(7, b"") if binary else None,
            protocol_version=int(fields.get(1, 0)),
        )


def _take(data: bytes, offset: int, length: int) -> Tuple[bytes, int]:
    if offset + length > len(data):
        raise ValueError("truncated field")
    return data[offset:offset + length], offset + length


def frame(message: CastMessage) -> bytes:
    """The message as it goes on the wire: its length, then the message."""
    body = message.encode()
    return struct.pack(">I", len(body)) + body


def frame_length(header: bytes) -> int:
    """The length a frame's 4-byte header announces; ValueError past MAX_MESSAGE_SIZE."""
    if len(header) != 4:
        raise ValueError(f"a frame header is 4 bytes, not {len(header)}")
    (length,) = struct.unpack(">I", header)
    if length > MAX_MESSAGE_SIZE:
        raise ValueError(f"frame of {length} bytes is over {MAX_MESSAGE_SIZE}")
    return length
