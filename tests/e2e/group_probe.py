"""What senders see of a speaker group, run inside a sender namespace by tests/e2e/test_groups.py.

Each command prints JSON lines on standard output:

  play GROUP URL SECONDS   find GROUP by name with pychromecast (mDNS), play URL on it; then
                           MultizoneManager's view of each member, and each member's own
                           receiver status (app, session) and media state
  follow GROUP SECONDS     find GROUP, connect, and report as they happen: the group's members
                           joining and leaving (MultizoneManager listeners) and the address
                           pychromecast is connected to (a leader move makes it reconnect)
"""

from __future__ import annotations

import json
import sys
import threading
import time
from uuid import UUID

import pychromecast
from pychromecast.controllers import BaseController
from pychromecast.controllers.multizone import MultizoneManager, MultiZoneManagerListener
from pychromecast.controllers.receiver import CastStatusListener
from pychromecast.socket_client import ConnectionStatusListener

# pychromecast writes to its TLS socket from two threads; serialized per client when imported.
import castsim.pychromecast_io  # noqa: F401

lock = threading.Lock()


def emit(**fields: object) -> None:
    with lock:
        print(json.dumps(fields), flush=True)


def find(group_name: str):  # type: ignore[no-untyped-def]
    """Every cast pychromecast finds, the group among them, the others, and a
    MultizoneManager with a listener for each of the others (registered before anything
    connects: the manager asks for the members when the group's connection comes up)."""
    casts, browser = pychromecast.get_chromecasts(timeout=8)
    by_name = {cast.cast_info.friendly_name: cast for cast in casts}
    group = by_name.get(group_name)
    if group is None:
        emit(error=f"{group_name} not found among {sorted(by_name)}")
        sys.exit(1)
    members = [cast for cast in casts if cast.cast_info.cast_type != "group"]
    manager = MultizoneManager()
    listeners = {member.cast_info.friendly_name: MemberListener(member.cast_info.friendly_name) for member in members}
    for member in members:
        manager.register_listener(member.uuid, listeners[member.cast_info.friendly_name])
    manager.add_multizone(group)
    return group, members, manager, listeners, browser


class MemberListener(MultiZoneManagerListener):
    """What MultizoneManager tells a member's listener (as Home Assistant's member entity hears it)."""

    def __init__(self, member: str) -> None:
        self.member = member
        self.group_media_states: list[str] = []

    def added_to_multizone(self, group_uuid: str) -> None:
        emit(event="member_added", member=self.member, group=group_uuid)

    def removed_from_multizone(self, group_uuid: str) -> None:
        emit(event="member_removed", member=self.member, group=group_uuid)

    def multizone_new_media_status(self, group_uuid: str, media_status) -> None:  # type: ignore[no-untyped-def]
        self.group_media_states.append(media_status.player_state)

    def multizone_new_cast_status(self, group_uuid: str, cast_status) -> None:  # type: ignore[no-untyped-def]
        pass


def play(group_name: str, url: str, seconds: float) -> None:
    group, members, manager, listeners, browser = find(group_name)
    for cast in [group, *members]:
        cast.wait(timeout=10)
    deadline = time.time() + seconds
    while time.time() < deadline and not any(manager.get_multizone_memberships(m.uuid) for m in members):
        time.sleep(0.1)
    group.media_controller.play_media(url, "audio/mpeg")
    group.media_controller.block_until_active(timeout=10)
    while time.time() < deadline and group.media_controller.status.player_state != "PLAYING":
        time.sleep(0.1)
    # Members hear of the group's session through their own receiver status.
    while time.time() < deadline and not all(m.status and m.status.app_id in ("531A4F84", "705D30C6") for m in members
                                             if manager.get_multizone_memberships(m.uuid)):
        time.sleep(0.1)
    emit(group={"uuid": str(group.uuid), "host": group.cast_info.host, "port": group.cast_info.port,
                "player_state": group.media_controller.status.player_state, "app_id": group.status.app_id,
                "session_id": group.status.session_id, "content_id": group.media_controller.status.content_id},
         members={m.cast_info.friendly_name: {
             "uuid": str(m.uuid), "memberships": manager.get_multizone_memberships(m.uuid),
             "app_id": m.status.app_id if m.status else None, "session_id": m.status.session_id if m.status else None,
             "display_name": m.status.display_name if m.status else None,
             "media_player_state": m.media_controller.status.player_state,
             # The group's media status, forwarded to the member's listener: what HA shows on the member.
             "group_media_states": listeners[m.cast_info.friendly_name].group_media_states} for m in members})
    for cast in [group, *members]:
        cast.disconnect(timeout=5)
    browser.stop_discovery()


class MultizoneMessages(BaseController):
    """Every message of the multizone namespace, as it came (beside MultizoneManager's own handler)."""

    def __init__(self) -> None:
        super().__init__("urn:x-cast:com.google.cast.multizone", target_platform=True)

    def receive_message(self, message, data: dict) -> bool:  # type: ignore[no-untyped-def]
        emit(event="multizone", type=data.get("type"), deviceId=data.get("deviceId") or (data.get("device") or {}).get("deviceId"))
        return False


class ConnectionRecorder(ConnectionStatusListener):
    def __init__(self, cast: pychromecast.Chromecast) -> None:
        self.cast = cast

    def new_connection_status(self, status) -> None:  # type: ignore[no-untyped-def]
        address = status.address
        emit(event="connection", status=status.status, host=address.address if address else None,
             port=address.port if address else None)


def follow(group_name: str, seconds: float) -> None:
    group, _, _, _, browser = find(group_name)
    group.register_connection_listener(ConnectionRecorder(group))
    group.register_handler(MultizoneMessages())
    group.wait(timeout=10)
    emit(event="ready", host=group.cast_info.host, port=group.cast_info.port)
    time.sleep(seconds)
    group.disconnect(timeout=5)
    browser.stop_discovery()


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    if command == "play":
        play(arguments[0], arguments[1], float(arguments[2]))
    elif command == "follow":
        follow(arguments[0], float(arguments[1]))
    else:
        sys.exit(f"unknown command {command}")
