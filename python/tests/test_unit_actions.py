"""The client's action helpers follow the scenario's action grammar, which castsim defines
once (`castsim schema`, committed as scenarios/scenario.schema.json and checked equal to it
by the Swift tests): every action has a helper, and every helper's body is a valid action.
A new action without a helper, or a helper that drifts from the grammar, fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import jsonschema
import pytest

from castsim import ControlClient

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "scenario.schema.json"


class Recording(ControlClient):
    """A client that keeps its requests and answers every act as done."""

    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9")
        self.requests: List[Tuple[str, str, Any]] = []

    def _json(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        self.requests.append((method, path, body))
        if path == "/clock/advance":
            return {"mode": "manual", "speed": None, "time": 1}
        return {"done": "x", "time": 0}


# Each action of the grammar, and a call of its helper: (method, args, kwargs).
HELPERS: Dict[str, List[Tuple[str, tuple, dict]]] = {
    "remote": [("play", (), {}), ("pause", (), {}), ("stop", (), {}), ("next", (), {}), ("previous", (), {})],
    "volume": [("set_volume", (0.3,), {}), ("set_volume", (), {"muted": True})],
    "buffering": [("buffering", (3,), {})],
    "playerError": [("player_error", (), {}), ("player_error", (104,), {})],
    "adBreak": [("ad_break", (), {}), ("ad_break", ("fail",), {})],
    "standby": [("standby", (), {}), ("standby", (False,), {})],
    "activeInput": [("active_input", (), {}), ("active_input", (False,), {})],
    "launchApp": [("launch_app", ("CC1AD845",), {})],
    "stopApp": [("stop_app", (), {})],
    "emit": [("emit", ("media", {"type": "MEDIA_STATUS", "status": []}), {})],
    "closeConnection": [("close_connection", (), {}), ("close_connection", (2,), {"reset": True})],
    "stopHeartbeats": [("stop_heartbeats", ("20s",), {})],
    "unresponsive": [("unresponsive", (5,), {})],
    "delayReplies": [("stall_replies", ("2s", "30s"), {}), ("stall_replies", ("2s", "30s"), {"which": 2})],
    "sendFrame": [("send_frame", (), {}), ("send_frame", ("oversized", "last"), {})],
    "deviceAuth": [("device_auth", ("error",), {})],
    "withdraw": [("withdraw", (), {})],
    "restore": [("restore", (), {}), ("restore", ("127.0.0.9", 8010), {})],
    "offline": [("offline", (), {})],
    "online": [("online", (), {})],
    "leadGroup": [("lead_group", ("Downstairs",), {}), ("lead_group", ("Downstairs",), {"rename": True})],
    "createGroup": [("create_group", ("Upstairs", ["Kitchen", "Bedroom"]), {"leader": "Bedroom", "port": 32100})],
    "deleteGroup": [("delete_group", ("Upstairs",), {})],
    "transferSession": [("transfer_session", ("Bedroom",), {})],
    "emp": [("emp", ({"event": "isLive"},), {}), ("emp", ({"segmentMissing": {"from": "10m", "to": "12m"}},), {})],
    "mirroring": [("mirroring", (), {"packetLoss": 10, "feedback": False}), ("mirroring", (), {"endSession": "the TV changed input"}),
                  ("mirroring", (), {"limits": {"maxWidth": 1280, "maxHeight": 720}, "refuseOffers": {"code": 10107}})],
}


def grammar() -> Dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text())


def test_every_action_has_a_helper() -> None:
    actions = set(grammar()["$defs"]["action"]["properties"])
    # `advance` moves a manual clock: the client does it through its own endpoint.
    assert set(HELPERS) | {"advance"} == actions


@pytest.mark.parametrize("key,call", [(key, call) for key, calls in HELPERS.items() for call in calls],
                         ids=lambda value: value if isinstance(value, str) else value[0])
def test_each_helper_sends_a_valid_action(key: str, call: Tuple[str, tuple, dict]) -> None:
    schema = grammar()
    validator = jsonschema.Draft202012Validator({**schema["$defs"]["action"], "$defs": schema["$defs"]})
    client = Recording()
    name, args, kwargs = call
    getattr(client, name)(*args, **kwargs)
    assert [(method, path) for method, path, _ in client.requests] == [("POST", "/act")]
    body = client.requests[0][2]
    assert list(body) == [key]
    errors = [f"{'.'.join(map(str, error.path))}: {error.message}" for error in validator.iter_errors(body)]
    assert errors == [], f"{name}{args} sent {body}"


def test_advance_uses_the_clock_endpoint() -> None:
    client = Recording()
    client.advance("10m")
    assert client.requests == [("POST", "/clock/advance", {"by": "10m"})]
