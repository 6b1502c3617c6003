"""Device authentication against a strict verifier that trusts castsim's developer root."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import stat
import subprocess
from pathlib import Path
from typing import Callable

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.serialization import Encoding
from pychromecast.generated import cast_channel_pb2 as pb

from device_auth_verifier import AuthFailure, CastConnection, Challenge, challenge, check_chain, load_root, verify
from e2e_harness import REPO_ROOT, CastsimDevice

CERTS = REPO_ROOT / "certs"
ROOT = load_root(CERTS / "root.crt")


def connect(device: CastsimDevice) -> CastConnection:
    return CastConnection(device.host, device.cast_port)


def generate_pki(castsim_bin: Path, directory: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(castsim_bin), "certs", "generate", "--out", str(directory)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("hash_algorithm", [pb.SHA1, pb.SHA256], ids=["sha1", "sha256"])
def test_the_developer_root_accepts_the_device(castsim_factory: Callable[..., CastsimDevice], hash_algorithm: int) -> None:
    device = castsim_factory()
    connection = connect(device)
    try:
        nonces = set()
        for _ in range(3):
            result = challenge(connection, hash_algorithm)
            verify(result, ROOT)
            assert result.reply is not None
            assert result.reply.response.hash_algorithm == hash_algorithm
            nonces.add(result.nonce)
        assert len(nonces) == 3
        # Without --certs, castsim answers with the repository's certs/.
        response = result.reply.response
        assert response.client_auth_certificate == x509.load_pem_x509_certificate(
            (CERTS / "device.crt").read_bytes()).public_bytes(Encoding.DER)
        assert list(response.intermediate_certificate) == [x509.load_pem_x509_certificate(
            (CERTS / "intermediate.crt").read_bytes()).public_bytes(Encoding.DER)]
        # The TLS certificate: fresh, notBefore in the past, under 4 days.
        tls = x509.load_der_x509_certificate(result.tls_certificate_der)
        now = dt.datetime.now(dt.timezone.utc)
        assert tls.not_valid_before_utc < now - dt.timedelta(minutes=30)
        assert dt.timedelta(days=2) < tls.not_valid_after_utc - now < dt.timedelta(days=4)
    finally:
        connection.close()


def test_the_verifier_refuses_what_a_sender_refuses(castsim_factory: Callable[..., CastsimDevice]) -> None:
    """The verifier is strict: each tampered reply fails the check a real sender makes."""
    device = castsim_factory()
    connection = connect(device)
    try:
        good = challenge(connection, pb.SHA256)
        verify(good, ROOT)
    finally:
        connection.close()
    other = connect(castsim_factory())
    other_tls = other.tls_certificate_der
    other.close()
    assert other_tls != good.tls_certificate_der
    with pytest.raises(AuthFailure, match="signature does not cover"):
        verify(dataclasses.replace(good, nonce=b"\0" * 16), ROOT)
    with pytest.raises(AuthFailure, match="signature does not cover"):
        verify(dataclasses.replace(good, tls_certificate_der=other_tls), ROOT)
    echoed = pb.DeviceAuthMessage()
    echoed.CopyFrom(good.reply)
    echoed.response.sender_nonce = b"other"
    with pytest.raises(AuthFailure, match="not echoed"):
        verify(dataclasses.replace(good, reply=echoed), ROOT)
    # A reply that claims SHA-1 for a SHA-256 signature (Open Screen's kCastV2SignedBlobsMismatch).
    claimed = pb.DeviceAuthMessage()
    claimed.CopyFrom(good.reply)
    claimed.response.ClearField("hash_algorithm")
    with pytest.raises(AuthFailure, match="signature does not cover"):
        verify(dataclasses.replace(good, reply=claimed), ROOT)
    # Checked before the TLS certificate is valid, and after it expired.
    tls = x509.load_der_x509_certificate(good.tls_certificate_der)
    with pytest.raises(AuthFailure, match="not yet valid"):
        verify(good, ROOT, now=tls.not_valid_before_utc - dt.timedelta(minutes=1))
    with pytest.raises(AuthFailure, match="expired"):
        verify(good, ROOT, now=tls.not_valid_after_utc + dt.timedelta(minutes=1))


def test_a_chain_from_another_root_is_rejected(castsim_factory: Callable[..., CastsimDevice], castsim_bin: Path,
                                               tmp_path: Path) -> None:
    other = tmp_path / "other-pki"
    assert generate_pki(castsim_bin, other).returncode == 0
    device = castsim_factory(extra_args=("--certs", str(other)))
    connection = connect(device)
    try:
        result = challenge(connection, pb.SHA256)
    finally:
        connection.close()
    with pytest.raises(AuthFailure, match="not signed by a trusted CA"):
        verify(result, ROOT)
    verify(result, load_root(other / "root.crt"))


def test_device_auth_modes(castsim_factory: Callable[..., CastsimDevice]) -> None:
    self_signed = castsim_factory(extra_args=("--device-auth", "self-signed"))
    error = castsim_factory(extra_args=("--device-auth", "error"))
    ignore = castsim_factory(extra_args=("--device-auth", "ignore"))

    connection = connect(self_signed)
    try:
        result = challenge(connection, pb.SHA256)
    finally:
        connection.close()
    with pytest.raises(AuthFailure, match="not signed by a trusted CA"):
        verify(result, ROOT)
    # A correct signature from a device certificate that certifies itself.
    assert result.reply is not None
    response = result.reply.response
    certificate = x509.load_der_x509_certificate(response.client_auth_certificate)
    assert certificate.issuer == certificate.subject and not response.intermediate_certificate
    certificate.public_key().verify(response.signature, result.nonce + result.tls_certificate_der,
                                    padding.PKCS1v15(), hashes.SHA256())

    connection = connect(error)
    try:
        result = challenge(connection, pb.SHA1)
    finally:
        connection.close()
    assert result.reply is not None and result.reply.HasField("error")
    assert result.reply.error.error_type == pb.AuthError.INTERNAL_ERROR
    with pytest.raises(AuthFailure, match="AuthError INTERNAL_ERROR"):
        verify(result, ROOT)

    connection = connect(ignore)
    try:
        assert challenge(connection, pb.SHA256, timeout=2).reply is None
        # The connection is unharmed: the platform still answers.
        connection.send("urn:x-cast:com.google.cast.tp.connection", text='{"type":"CONNECT"}')
        connection.send("urn:x-cast:com.google.cast.receiver", text='{"type":"GET_STATUS","requestId":1}')
        types = []
        while (message := connection.receive(5)) is not None:
            types.append(json.loads(message.payload_utf8).get("type"))
            if "RECEIVER_STATUS" in types:
                break
        assert "RECEIVER_STATUS" in types
    finally:
        connection.close()


def test_a_scenario_step_switches_the_mode(castsim_factory: Callable[..., CastsimDevice], tmp_path: Path) -> None:
    scenario = tmp_path / "auth.json"
    scenario.write_text(json.dumps({
        "name": "auth flips",
        "clock": {"mode": "manual"},
        "device": {"deviceAuth": "error", "heartbeatInterval": "0s", "idleTimeout": "0s"},
        "timeline": [{"at": "1m", "deviceAuth": "dev-root"}],
    }))
    device = castsim_factory(extra_args=("--scenario", str(scenario)), console=True)
    connection = connect(device)
    try:
        with pytest.raises(AuthFailure, match="AuthError INTERNAL_ERROR"):
            verify(challenge(connection), ROOT)
        device.console("advance 1m")
        verify(wait_for_reply(connection), ROOT)
    finally:
        connection.close()


def wait_for_reply(connection: CastConnection) -> Challenge:
    """Challenges until the mode switch has happened (the console line is asynchronous)."""
    deadline = dt.datetime.now() + dt.timedelta(seconds=10)
    while True:
        result = challenge(connection)
        if result.reply is not None and result.reply.HasField("response") or dt.datetime.now() > deadline:
            return result


def test_certs_generate_writes_a_pki_a_verifier_accepts(castsim_bin: Path, tmp_path: Path) -> None:
    directory = tmp_path / "pki"
    result = generate_pki(castsim_bin, directory)
    assert result.returncode == 0, result.stderr
    assert "root SHA-256 fingerprint" in result.stdout
    names = ["root.crt", "root.key", "intermediate.crt", "intermediate.key", "device.crt", "device.key"]
    assert sorted(p.name for p in directory.iterdir()) == sorted(names)
    for name in names:
        mode = stat.S_IMODE((directory / name).stat().st_mode)
        assert mode == (0o600 if name.endswith(".key") else 0o644), name
    certificates = {name: x509.load_pem_x509_certificate((directory / name).read_bytes())
                    for name in names if name.endswith(".crt")}
    check_chain(certificates["device.crt"], [certificates["intermediate.crt"]], certificates["root.crt"],
                dt.datetime.now(dt.timezone.utc))
    # Never overwritten unasked.
    again = generate_pki(castsim_bin, directory)
    assert again.returncode != 0 and "--force" in again.stderr

