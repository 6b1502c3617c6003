"""A strict Cast device-auth verifier, as Chrome and Open Screen's sender check a device.

It speaks CASTV2 itself (TLS, and castsim.castv2's framing and CastMessage; the
DeviceAuthMessage inside is pychromecast's generated protobuf) so that it sees the TLS
certificate of the very connection it challenges, sends an AuthChallenge with a random
nonce and checks the reply the way docs/protocol/castv2.md §4.3–§4.4 describes:

- the TLS certificate: notBefore not in the future, notAfter less than 4 days ahead;
- the chain: device certificate → intermediates (any order, found by name) → the trusted
  root; every issuer a CA with RSA >= 2048 and keyCertSign, PKCS#1 v1.5 signatures,
  path length limits honoured, every certificate but the root valid now;
- the device certificate: RSA >= 2048, digitalSignature;
- the signature: RSASSA-PKCS1-v1_5 with the digest the reply's hash_algorithm names,
  over sender_nonce || the TLS certificate's DER;
- the nonce echoed.

A failure raises AuthFailure naming the check, as a sender's error would.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from castsim.castv2 import NS_DEVICE_AUTH as DEVICE_AUTH_NAMESPACE
from castsim.castv2 import PLATFORM_RECEIVER, PLATFORM_SENDER, CastMessage, frame, frame_length
from pychromecast.generated import cast_channel_pb2 as pb

MAX_TLS_LIFETIME = dt.timedelta(days=4)


class AuthFailure(Exception):
    """The device is not accepted; the message says which check failed."""


@dataclass
class Challenge:
    """What one challenge on one connection produced."""

    nonce: bytes
    hash_algorithm: int
    tls_certificate_der: bytes
    reply: pb.DeviceAuthMessage | None  # None: no reply within the timeout


class CastConnection:
    """A bare CASTV2 connection: TLS without certificate checks (as Cast senders do)."""

    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection((host, port), timeout=timeout)
        self.sock = context.wrap_socket(raw)
        der = self.sock.getpeercert(binary_form=True)
        assert der is not None
        self.tls_certificate_der: bytes = der

    def send(self, namespace: str, *, binary: bytes | None = None, text: str | None = None,
             source: str = PLATFORM_SENDER, destination: str = PLATFORM_RECEIVER) -> None:
        payload = {"payload_binary": binary} if binary is not None else {"payload_utf8": text or ""}
        self.sock.sendall(frame(CastMessage(source, destination, namespace, **payload)))

    def receive(self, timeout: float) -> CastMessage | None:
        self.sock.settimeout(timeout)
        try:
            header = self._read(4)
        except (socket.timeout, TimeoutError):
            return None
        return CastMessage.decode(self._read(frame_length(header)))

    def _read(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("castsim closed the connection")
            data += chunk
        return data

    def close(self) -> None:
        self.sock.close()


def challenge(connection: CastConnection, hash_algorithm: int = pb.SHA256, timeout: float = 5.0) -> Challenge:
    """Sends an AuthChallenge with a fresh random nonce and waits for the deviceauth reply."""
    nonce = os.urandom(16)
    message = pb.DeviceAuthMessage()
    message.challenge.sender_nonce = nonce
    message.challenge.hash_algorithm = hash_algorithm
    connection.send(DEVICE_AUTH_NAMESPACE, binary=message.SerializeToString())
    deadline = dt.datetime.now() + dt.timedelta(seconds=timeout)
    while (left := (deadline - dt.datetime.now()).total_seconds()) > 0:
        received = connection.receive(left)
        if received is None:
            break
        if received.namespace == DEVICE_AUTH_NAMESPACE:
            reply = pb.DeviceAuthMessage()
            reply.ParseFromString(received.payload_binary)
            return Challenge(nonce, hash_algorithm, connection.tls_certificate_der, reply)
    return Challenge(nonce, hash_algorithm, connection.tls_certificate_der, None)


def verify(result: Challenge, trusted_root: x509.Certificate, now: dt.datetime | None = None) -> x509.Certificate:
    """Accepts the device or raises AuthFailure; returns the device certificate."""
    now = now or dt.datetime.now(dt.timezone.utc)
    if result.reply is None:
        raise AuthFailure("no deviceauth reply")
    if result.reply.HasField("error"):
        raise AuthFailure(f"AuthError {pb.AuthError.ErrorType.Name(result.reply.error.error_type)}")
    if not result.reply.HasField("response"):
        raise AuthFailure("reply has no response")
    response = result.reply.response

    tls = x509.load_der_x509_certificate(result.tls_certificate_der)
    if tls.not_valid_before_utc > now:
        raise AuthFailure(f"TLS certificate not yet valid (notBefore {tls.not_valid_before_utc})")
    if tls.not_valid_after_utc - now >= MAX_TLS_LIFETIME:
        raise AuthFailure(f"TLS certificate valid for 4 days or more (notAfter {tls.not_valid_after_utc})")
    if tls.not_valid_after_utc <= now:
        raise AuthFailure("TLS certificate expired")

    device = x509.load_der_x509_certificate(response.client_auth_certificate)
    intermediates = [x509.load_der_x509_certificate(der) for der in response.intermediate_certificate]
    check_chain(device, intermediates, trusted_root, now)
    key = device.public_key()
    if not isinstance(key, rsa.RSAPublicKey) or key.key_size < 2048:
        raise AuthFailure("device certificate key is not RSA >= 2048")
    if not device.extensions.get_extension_for_class(x509.KeyUsage).value.digital_signature:
        raise AuthFailure("device certificate lacks digitalSignature")

    # The reply's hash_algorithm names the digest; absent means SHA-1 (Open Screen).
    named = response.hash_algorithm if response.HasField("hash_algorithm") else pb.SHA1
    digest = hashes.SHA256() if named == pb.SHA256 else hashes.SHA1()
    try:
        key.verify(response.signature, result.nonce + result.tls_certificate_der, padding.PKCS1v15(), digest)
    except InvalidSignature:
        raise AuthFailure("signature does not cover sender_nonce || TLS certificate (kCastV2SignedBlobsMismatch)") from None
    if response.sender_nonce != result.nonce:
        raise AuthFailure("sender_nonce not echoed")
    return device


def check_chain(device: x509.Certificate, intermediates: list[x509.Certificate],
                 root: x509.Certificate, now: dt.datetime) -> None:
    current = device
    path_below = 0  # CA certificates between the issuer being checked and the leaf
    for _ in range(len(intermediates) + 1):
        if current.issuer == root.subject:
            _check_issuer(root, current, path_below, now, is_root=True)
            return
        issuer = next((c for c in intermediates if c.subject == current.issuer), None)
        if issuer is None:
            raise AuthFailure(f"not signed by a trusted CA: no issuer for {current.subject.rfc4514_string()} "
                              "(kCastV2CertNotSignedByTrustedCa)")
        _check_issuer(issuer, current, path_below, now, is_root=False)
        path_below += 1  # the issuer just checked is below the next one
        current = issuer
    raise AuthFailure("chain does not reach the trusted root")


def _check_issuer(issuer: x509.Certificate, child: x509.Certificate, path_below: int,
                  now: dt.datetime, is_root: bool) -> None:
    name = issuer.subject.rfc4514_string()
    constraints = issuer.extensions.get_extension_for_class(x509.BasicConstraints).value
    if not constraints.ca:
        raise AuthFailure(f"{name} signs a certificate but is not a CA")
    if constraints.path_length is not None and path_below > constraints.path_length:
        raise AuthFailure(f"{name}: path length {constraints.path_length} exceeded")
    if not issuer.extensions.get_extension_for_class(x509.KeyUsage).value.key_cert_sign:
        raise AuthFailure(f"{name} lacks keyCertSign")
    key = issuer.public_key()
    if not isinstance(key, rsa.RSAPublicKey) or key.key_size < 2048:
        raise AuthFailure(f"{name}: not RSA >= 2048")
    if not is_root and not (issuer.not_valid_before_utc <= now < issuer.not_valid_after_utc):
        raise AuthFailure(f"{name} is not valid now")
    if not (child.not_valid_before_utc <= now < child.not_valid_after_utc):
        raise AuthFailure(f"{child.subject.rfc4514_string()} is not valid now")
    hash_algorithm = child.signature_hash_algorithm
    if hash_algorithm is None:
        raise AuthFailure(f"{child.subject.rfc4514_string()}: signature is not RSA PKCS#1 v1.5")
    try:
        key.verify(child.signature, child.tbs_certificate_bytes, padding.PKCS1v15(), hash_algorithm)
    except InvalidSignature:
        raise AuthFailure(f"{child.subject.rfc4514_string()}: signature by {name} does not verify") from None


def load_root(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())
