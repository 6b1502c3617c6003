"""The EMP senders' decoding rules the end-to-end tests apply (emp_senders.py), checked on
their own against what docs/protocol/emp.md says each sender accepts and rejects, and the
test scenario against castsim's validator."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from emp_senders import SCENARIO, emp_rejections

# --------------------------------------------------------------------------
# The rules themselves (no castsim)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "rejected_by"),  # rejected_by: the senders whose rules refuse it
    [
        ({"type": "tracksupdated", "data": {"tracksInfo": {"activeTrackIds": [1], "tracks": [
            {"id": 1, "trackId": 1, "label": "Svenska", "language": "sv", "type": "text", "kind": "subtitles"}]}}}, set()),
        ({"type": "tracksupdated", "data": {"tracksInfo": {"activeTrackIds": [], "tracks": [
            {"trackId": 1, "label": "Svenska", "language": "sv", "type": "text"}]}}}, {"iOS"}),
        ({"type": "tracksupdated", "data": {"tracksInfo": {"activeTrackIds": [], "tracks": [
            {"id": 1, "label": "Svenska", "language": "sv", "type": "text"}]}}}, {"Android"}),
        ({"type": "tracksupdated", "data": {"tracksInfo": {"activeTrackIds": [], "tracks": [
            {"id": 1, "trackId": 1, "language": "sv", "type": "text"}]}}}, {"iOS", "Android"}),
        ({"type": "timeshiftenabled", "data": True}, {"iOS"}),
        ({"type": "timeShiftEnabled", "data": 1}, {"iOS", "Android"}),
        ({"type": "assetchanged", "data": {"asset": {}}}, {"iOS"}),
        ({"type": "liveDelay", "data": 30}, {"iOS"}),
        ({"type": "segmentmissing", "data": 12.5}, {"iOS", "Android"}),
        ({"type": "startTimeLive", "data": 1777658400000}, set()),
        ({"type": "programchanged", "data": {"programId": "p1"}}, {"iOS", "Android"}),
        ({"type": "programchanged", "data": {"program": {"programId": "p1", "assetId": "a", "channelId": 7}}}, {"iOS"}),
        ({"type": "error", "data": {"type": "ERROR", "code": "102", "message": "X"}}, {"iOS"}),
        ({"type": "error", "data": {"code": 102, "message": 7}}, {"iOS"}),
        ({"type": "error"}, {"Android"}),
        ({"type": "error", "data": {"type": "ERROR", "code": 102, "message": "INVALID_SESSION_TOKEN"}}, set()),
        ({"type": "entitlementchange", "data": {"entitlement": {"live": False, "ffEnabled": True, "rwEnabled": True,
                                                                "timeshiftEnabled": True}}}, {"iOS"}),
        ({"type": "volumechange", "data": {"volume": 1e30, "muted": False}}, {"iOS"}),
        ({"type": "volumechange", "data": {"volume": 0.5, "muted": False}}, set()),
        ({"type": "volumechange", "data": {"volume": 1, "muted": False, "senderId": None}}, set()),
    ],
)
def test_sender_rules(payload: dict, rejected_by: set[str]) -> None:
    reasons = emp_rejections(json.dumps(payload))
    assert {r.split(":")[0] for r in reasons} == rejected_by, reasons


def test_scenario_validates(castsim_bin: Path, tmp_path: Path) -> None:
    path = tmp_path / "emp.json"
    path.write_text(json.dumps(SCENARIO))
    result = subprocess.run([str(castsim_bin), "validate", str(path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
