"""End-to-end: the live dashboard (GET / on the control API) in headless chromium.

Each test starts its own castsim (conftest.py), drives it with senders over the Cast
channel, and watches and clicks the dashboard through selenium with Debian's chromium
and chromedriver (dashboard_browser.py). The page's data-* attributes are what the
assertions read; the control API (GET /api/v1/state) and pychromecast are the other side
of every check. The recording player has its own file, test_dashboard_recording.py.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from pychromecast.controllers.media import (
    MEDIA_PLAYER_STATE_PAUSED,
    MEDIA_PLAYER_STATE_PLAYING,
    STREAM_TYPE_BUFFERED,
)
from pychromecast.response_handler import WaitResponse
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from device_auth_verifier import CastConnection
from e2e_harness import CAST_PORT, CastsimDevice, Sender, wait_until
from dashboard_browser import (  # noqa: F401 - browser is a fixture
    assert_console_clean,
    attr,
    click,
    computed,
    log_count,
    log_rows,
    open_dashboard,
    rgba,
    screenshot,
    set_type_filter,
    text,
    api_get,
    api_media,
    load_queue,
    wait_player_state,
    browser,
    FIRST_TITLE,
    SECOND_TITLE,
    LOG_MAX,
    MEDIA,
    NS_CONNECTION,
    NS_RECEIVER,
    NS_MEDIA,
)

# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------


def test_the_page_as_served_shows_the_device_before_any_fetch(
    castsim_factory: Callable[..., CastsimDevice], browser: WebDriver
) -> None:
    """GET / comes with the device's state in it: the first paint has the device's name and
    clock although the browser here gets no answer from the API at all. The state is escaped
    for its <script> element: a name that closes it stays a name."""
    name = 'Den </script><script>window.pwned = 1</script> & <!-- "TV"'
    device = castsim_factory(name=name, extra_args=("--manual-clock",), console=True)
    device.console("advance 90s")
    wait_until(lambda: api_get(device, "clock")["time"] == 90, what="the manual clock at 90 s")

    with urllib.request.urlopen(device.control_url + "/", timeout=10) as response:
        html = response.read().decode("utf-8")
    embedded = re.search(r'<script type="application/json" id="initial-state">(.*?)</script>', html, re.DOTALL)
    assert embedded, "the page has no initial-state element"
    served = json.loads(embedded[1])
    assert served["device"]["name"] == name
    assert served["clock"] == {"mode": "manual", "speed": None, "time": 90}
    assert served["discovery"] == api_get(device, "state")["discovery"]

    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/v1/*"]})
    browser.get(device.control_url + "/")
    path = screenshot(browser, "0-first-paint")
    assert text(browser, "#device-name") == name, f"see {path}"
    assert text(browser, "#clock-time") == "90.0 s" and text(browser, "#clock-mode") == "manual", f"see {path}"
    assert browser.execute_script("return window.pwned === undefined"), "the name ran as a script"
    # Started with --mdns off (the harness's default): the badge says so, and why.
    assert text(browser, "#device-advertised") == "not advertised"
    assert attr(browser, "#device-advertised", "title") == "Not advertised: discovery is off (castsim run --mdns off)"


def test_the_tv_shows_what_plays_and_the_buttons_work(
    castsim_factory: Callable[..., CastsimDevice],
    sender_factory: Callable[[CastsimDevice], Sender],
    browser: WebDriver,
) -> None:
    device = castsim_factory(extra_args=("--manual-clock",))
    sender = sender_factory(device)
    reply = load_queue(sender)
    status = reply["status"][0]
    assert status["activeTrackIds"] == [1, 2], status
    wait_player_state(sender, MEDIA_PLAYER_STATE_PLAYING, "after LOAD")
    sender.cast.set_volume(0.4)
    wait_until(lambda: abs(api_get(device, "state")["volume"]["level"] - 0.4) < 1e-6, what="volume 0.4 at the device")

    open_dashboard(browser, device)

    # What plays.
    wait_until(lambda: text(browser, "#title") == FIRST_TITLE, what="#title shows the first item",
               details=lambda: f"#title={text(browser, '#title')!r}")
    assert text(browser, "#app-name") == "Default Media Receiver"
    assert text(browser, "#player-state") == "PLAYING"
    assert attr(browser, "#tv", "data-player-state") == "PLAYING"
    assert attr(browser, "#tv", "data-standby") == "false"
    assert text(browser, "#text-track") == "English (en-US)"
    assert text(browser, "#audio-track") == "Français (fr-FR)"
    assert attr(browser, "#position", "data-duration") == "600", "the default duration (conftest: --default-duration 600)"
    assert float(attr(browser, "#position", "data-seconds") or "nan") == 0.0, "a manual clock has not moved"

    # The queue: two items, the first current.
    items = browser.execute_script(
        "return [...document.querySelectorAll('#queue li[data-item-id]')].map(li => ({"
        " id: Number(li.dataset.itemId), current: li.classList.contains('current'),"
        " title: li.querySelector('.qtitle').textContent }));"
    )
    media = api_media(device)
    assert [i["title"] for i in items] == [FIRST_TITLE, SECOND_TITLE], items
    assert [i["id"] for i in items] == [item["itemId"] for item in media["items"]], (items, media["items"])
    assert [i["current"] for i in items] == [True, False], items
    assert items[0]["id"] == media["currentItemId"]

    # The subtitle preview wears the sender's text track style.
    sample = "#subtitle-sample"
    assert attr(browser, sample, "data-foreground-color") == "#FFFF00FF"
    assert attr(browser, sample, "data-background-color") == "#00000080"
    assert attr(browser, sample, "data-edge-type") == "OUTLINE"
    assert attr(browser, sample, "data-font-scale") == "1.5"
    assert attr(browser, sample, "data-active") == "true"
    assert computed(browser, sample, "color") == "rgb(255, 255, 0)"
    background = rgba(computed(browser, sample, "background-color"))
    assert background[:3] == (0, 0, 0) and abs(background[3] - 0x80 / 255) < 0.01, background
    assert computed(browser, sample, "text-shadow") != "none", "OUTLINE draws an edge"
    font_px = float(computed(browser, sample, "font-size").removesuffix("px"))
    window_px = float(computed(browser, "#subtitle-window", "font-size").removesuffix("px"))
    assert font_px > window_px * 1.2, f"fontScale 1.5: sample {font_px}px, window text {window_px}px"

    # Volume and senders.
    assert attr(browser, "#volume", "data-level") == "0.4"
    assert attr(browser, "#volume", "data-muted") == "false"
    assert text(browser, "#volume") == "40%"
    connections = browser.execute_script(
        "return [...document.querySelectorAll('#senders .conn[data-connection-id]')].map(c => Number(c.dataset.connectionId));"
    )
    assert connections == [c["id"] for c in api_get(device, "state")["connections"]], connections
    assert len(connections) == 1, connections
    assert not browser.find_element(By.ID, "clock-controls").get_attribute("hidden"), "a manual clock shows its buttons"
    screenshot(browser, "1-loaded")

    # Pause from the dashboard: the sender and the API see it, and so does the TV.
    click(browser, "button[data-action=pause]")
    wait_player_state(sender, MEDIA_PLAYER_STATE_PAUSED, "after the dashboard's pause button")
    assert api_media(device)["playerState"] == "PAUSED"
    wait_until(lambda: text(browser, "#player-state") == "PAUSED", what="#player-state PAUSED",
               details=lambda: f"#player-state={text(browser, '#player-state')!r}")
    assert attr(browser, "#tv", "data-player-state") == "PAUSED"
    screenshot(browser, "2-paused")

    # Play again, then move the manual clock 10 s: the position follows.
    click(browser, "button[data-action=play]")
    wait_player_state(sender, MEDIA_PLAYER_STATE_PLAYING, "after the dashboard's play button")
    wait_until(lambda: text(browser, "#player-state") == "PLAYING", what="#player-state PLAYING again")
    before = float(attr(browser, "#position", "data-seconds") or "nan")
    clock_before = api_get(device, "clock")["time"]
    click(browser, "#clock-controls button[data-action=advance][data-by='10s']")
    wait_until(lambda: api_get(device, "clock")["time"] == pytest.approx(clock_before + 10),
               what="the device clock advanced by 10 s")
    wait_until(lambda: float(attr(browser, "#position", "data-seconds") or "nan") == pytest.approx(before + 10, abs=0.11),
               what=f"#position data-seconds {before} + 10",
               details=lambda: f"data-seconds={attr(browser, '#position', 'data-seconds')!r} "
                               f"api currentTime={api_media(device).get('currentTime')}")
    assert api_media(device)["currentTime"] == pytest.approx(before + 10, abs=0.11)
    assert text(browser, "#position-current") == "0:10"

    # The message log: the sender's LOAD came in, MEDIA_STATUS went out; the type filter narrows it.
    shown_all, kept, _ = log_count(browser)
    assert shown_all == kept > 0
    set_type_filter(browser, "LOAD")
    wait_until(lambda: log_count(browser)[0] < shown_all, what="the type filter to narrow the log")
    rows = log_rows(browser)
    assert rows and all("load" in r["type"].lower() for r in rows), rows
    assert any(r["type"] == "LOAD" and r["direction"] == "in" and r["namespace"] == "media" for r in rows), rows
    assert log_count(browser)[0] == len(rows), "every LOAD fits in the view"
    set_type_filter(browser, "MEDIA_STATUS")
    wait_until(lambda: (rows := log_rows(browser)) and all(r["type"] == "MEDIA_STATUS" for r in rows),
               what="only MEDIA_STATUS rows", details=lambda: str(log_rows(browser)))
    rows = log_rows(browser)
    assert any(r["direction"] == "out" for r in rows), rows
    journal = api_get(device, "journal?type=MEDIA_STATUS&direction=out")
    assert {r["seq"] for r in rows if r["direction"] == "out"} <= {m["seq"] for m in journal["messages"]}
    set_type_filter(browser, "NO_SUCH_TYPE")
    wait_until(lambda: text(browser, "#log .log-empty") == "No message matches the filters",
               what="an empty log for a type no message has")
    assert log_rows(browser) == []
    set_type_filter(browser, "")
    wait_until(lambda: log_count(browser)[0] == log_count(browser)[1], what="every message shown without a filter")

    # Standby: the TV goes dark; the API agrees.
    click(browser, "button[data-action=standby]")
    wait_until(lambda: attr(browser, "#tv", "data-standby") == "true", what="#tv data-standby true")
    assert api_get(device, "state")["device"]["standby"] is True
    assert attr(browser, "#standby-button", "aria-pressed") == "true"
    assert browser.find_element(By.ID, "tv-standby").is_displayed()
    screenshot(browser, "3-standby")

    # Mute, a row's payload, and Clear: the log empties as the journal does.
    click(browser, "button[data-action=mute]")
    wait_until(lambda: attr(browser, "#volume", "data-muted") == "true", what="#volume data-muted true")
    assert api_get(device, "state")["volume"]["muted"] is True
    click(browser, "#log .log-row .log-line")
    wait_until(lambda: browser.execute_script("return document.querySelectorAll('#log .log-detail').length") == 1,
               what="the payload of the row clicked")
    last_before_clear = max(m["seq"] for m in api_get(device, "journal")["messages"])
    click(browser, "button[data-action=clear-journal]")

    # Messages go on arriving after the clear (heartbeats, the sender's answers to the mute's
    # broadcasts; on a busy machine more of them): what counts is that nothing from before
    # it is kept, and that the log shows what the journal keeps.
    def emptied_with_the_journal() -> bool:
        kept = api_get(device, "journal")["messages"]
        return (log_count(browser)[1] == len(kept) and all(m["seq"] > last_before_clear for m in kept)
                and all(r["seq"] > last_before_clear for r in log_rows(browser)))

    wait_until(emptied_with_the_journal, what="the log emptied with the journal",
               details=lambda: f"#log-count={text(browser, '#log-count')!r}, last seq before the clear {last_before_clear}, "
                               f"journal seqs {[m['seq'] for m in api_get(device, 'journal')['messages']]}")
    assert_console_clean(browser, "after the buttons")


def test_the_log_stays_bounded_with_many_messages(
    castsim_factory: Callable[..., CastsimDevice],
    sender_factory: Callable[[CastsimDevice], Sender],
    browser: WebDriver,
) -> None:
    device = castsim_factory()
    sender = sender_factory(device)
    handler = WaitResponse(10.0, "play_media")
    sender.media.play_media(f"{MEDIA}/long.mp4", "video/mp4", title="Long", stream_type=STREAM_TYPE_BUFFERED,
                            callback_function=handler.callback)
    handler.wait_response()
    sender.media.block_until_active(timeout=10)
    wait_player_state(sender, MEDIA_PLAYER_STATE_PLAYING, "after LOAD")
    open_dashboard(browser, device)
    wait_until(lambda: text(browser, "#player-state") == "PLAYING", what="#player-state PLAYING")

    # Ten raw senders, 300 GET_STATUS each: 3000 requests, as many RECEIVER_STATUS answers.
    senders_count, per_sender, batch = 10, 300, 50
    raw = [CastConnection(device.host, CAST_PORT) for _ in range(senders_count)]
    try:
        for index, connection in enumerate(raw):
            connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}), source=f"flood-{index}")
        wait_until(lambda: len(api_get(device, "state")["connections"]) == senders_count + 1,
                   what=f"{senders_count + 1} connections at the device")
        started = time.monotonic()
        answered = [0] * senders_count
        for offset in range(0, per_sender, batch):
            for index, connection in enumerate(raw):
                for n in range(offset, offset + batch):
                    body = {"type": "GET_STATUS", "requestId": 1 + n}
                    connection.send(NS_RECEIVER, text=json.dumps(body), source=f"flood-{index}")
            # Read the answers before sending more, one thread per socket (OpenSSL objects
            # are not safe to read and write from two threads), so no buffer ever fills.
            for index, connection in enumerate(raw):
                while answered[index] < offset + batch:
                    message = connection.receive(timeout=10)
                    assert message is not None, f"flood-{index}: no answer to GET_STATUS {answered[index] + 1}"
                    if message.namespace == NS_RECEIVER:
                        answered[index] += 1
        flood_seconds = time.monotonic() - started
    finally:
        for connection in raw:
            connection.close()
    assert answered == [per_sender] * senders_count
    journal_seen = api_get(device, "journal?limit=1")["seen"]
    assert journal_seen >= 2 * senders_count * per_sender

    # The page holds at most LOG_MAX messages and keeps only the rows in view in the DOM.
    def settled() -> tuple[int, int, int | None] | None:
        counts = log_count(browser)
        return counts if counts[1] == LOG_MAX and counts[2] is not None and counts[2] >= journal_seen else None

    counts = wait_until(settled, timeout=30, what=f"the log to keep {LOG_MAX} of {journal_seen} messages",
                        details=lambda: f"#log-count={text(browser, '#log-count')!r}")
    shown, kept, seen = counts
    assert shown == kept == LOG_MAX, counts
    row_nodes = browser.execute_script("return document.querySelectorAll('#log .log-row').length;")
    assert 0 < row_nodes < 600, f"{row_nodes} .log-row nodes in the DOM"
    newest = max(r["seq"] for r in log_rows(browser))
    assert newest >= api_get(device, "journal?limit=1")["messages"][0]["seq"] - 5, "following the newest messages"
    screenshot(browser, "4-flooded")

    # Still responsive: a script runs at once, and the pause button works.
    started_script = time.monotonic()
    browser.execute_script("return 1;")
    script_seconds = time.monotonic() - started_script
    assert script_seconds < 1.0, f"the page took {script_seconds:.2f}s to run a script"
    started_click = time.monotonic()
    click(browser, "button[data-action=pause]")
    wait_player_state(sender, MEDIA_PLAYER_STATE_PAUSED, "after the dashboard's pause button")
    wait_until(lambda: text(browser, "#player-state") == "PAUSED", timeout=5, what="#player-state PAUSED")
    click_seconds = time.monotonic() - started_click
    print(f"flood of {senders_count * per_sender} requests took {flood_seconds:.2f}s; "
          f"page: {counts}, {row_nodes} row nodes; pause round trip {click_seconds:.2f}s")
    after = log_count(browser)
    assert after[1] == LOG_MAX, after
    assert_console_clean(browser, "after the flood")


EMP_APP_ID = "F40E2D17"
NS_EMP = "urn:x-cast:com.ericsson.cast.receiver"
EMP_SCENARIO = {
    "name": "dashboard EMP",
    "clock": {"mode": "manual"},
    "device": {"idleTimeout": "0s", "heartbeatInterval": "0s"},
    "exposure": {
        "epoch": "2026-05-01T18:00:00Z",
        "businessUnits": [{"customer": "Blixt", "businessUnit": "Play", "sessionTokens": {"tok": "valid"}}],
        "channels": {"news-24": {"title": "News 24", "programs": [
            {"programId": "morning", "assetId": "morning-news", "title": "Morning News", "start": "0s", "end": "10m"},
            {"programId": "weather", "assetId": "weather", "title": "Weather", "start": "10m", "end": "20m"},
        ]}},
    },
}


def receive_until(connection: CastConnection, wanted: Callable[[str, dict], bool], what: str) -> dict:
    """Read messages until one is wanted (namespace, parsed payload); fail after 10 s."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        message = connection.receive(timeout=max(0.1, deadline - time.monotonic()))
        if message is None:
            break
        payload = json.loads(message.payload_utf8) if message.payload_utf8 else {}
        if wanted(message.namespace, payload):
            return payload
    raise AssertionError(f"no {what} within 10 s")


def test_an_emp_session_shows_channel_program_entitlement_and_events(
    castsim_factory: Callable[..., CastsimDevice], browser: WebDriver, tmp_path: Path
) -> None:
    scenario = tmp_path / "emp.json"
    scenario.write_text(json.dumps(EMP_SCENARIO))
    device = castsim_factory(extra_args=("--scenario", str(scenario)))
    sender = CastConnection(device.host, CAST_PORT)
    try:
        # What an EMP sender does: launch the EMP receiver, join it, LOAD a channel.
        sender.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}))
        sender.send(NS_RECEIVER, text=json.dumps({"type": "LAUNCH", "appId": EMP_APP_ID, "requestId": 1}))
        status = receive_until(
            sender,
            lambda ns, p: ns == NS_RECEIVER and p.get("type") == "RECEIVER_STATUS"
            and any(a.get("appId") == EMP_APP_ID for a in p["status"].get("applications", [])),
            "RECEIVER_STATUS with the EMP receiver")
        transport = next(a["transportId"] for a in status["status"]["applications"] if a["appId"] == EMP_APP_ID)
        sender.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}), destination=transport)
        sender.send(NS_MEDIA, destination=transport, text=json.dumps({
            "type": "LOAD", "requestId": 2, "autoplay": True, "credentials": "tok",
            "media": {"contentId": "news-24", "streamType": "LIVE", "contentType": "video/mp4"},
            "customData": {"customer": "Blixt", "businessUnit": "Play"},
        }))
        receive_until(sender, lambda ns, p: ns == NS_MEDIA and p.get("type") == "MEDIA_STATUS", "MEDIA_STATUS after LOAD")

        open_dashboard(browser, device)
        wait_until(lambda: attr(browser, "#app-panel", "hidden") is None, what="the EMP panel to show")
        wait_until(lambda: text(browser, '[data-panel-field="channelId"]') == "news-24", what="the channel in the EMP panel",
                   details=lambda: text(browser, "#app-panel-fields"))
        assert text(browser, '[data-panel-field="programId"]') == "morning"
        assert "airplayBlocked" in (text(browser, '[data-panel-field="entitlement"]') or "")

        # Across the program boundary on the manual clock: the panel follows, live.
        request = urllib.request.Request(f"{device.control_url}/api/v1/clock/advance", data=b'{"by": "11m"}',
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        wait_until(lambda: text(browser, '[data-panel-field="programId"]') == "weather", what="the new program in the EMP panel",
                   details=lambda: text(browser, "#app-panel-fields"))
        wait_until(lambda: "programchanged" in (text(browser, "#app-panel-events") or ""), what="programchanged in the last EMP events",
                   details=lambda: text(browser, "#app-panel-events"))
        # The panel is the app's own, titled by it; the line above the title is its summary.
        assert text(browser, "#app-panel-title") == "EMP session"
        wait_until(lambda: text(browser, "#app-line") == "EMP · LIVE · channel news-24 · Weather", what="the EMP line on the TV",
                   details=lambda: text(browser, "#app-line"))
        screenshot(browser, "5-emp")
        assert_console_clean(browser, "with the EMP panel")
    finally:
        sender.sock.close()


def test_a_household_shows_one_device_at_a_time_and_the_picker_switches(
    castsim_factory: Callable[..., CastsimDevice],
    browser: WebDriver,
) -> None:
    household = castsim_factory(household=2, extra_args=("--devices", "2", "--name", "Room", "--manual-clock"))
    # Room 2 at another volume, through the control API: the page for Room 2 must show it.
    request = urllib.request.Request(household.control_url + "/api/v1/act?device=Room%202", method="POST",
                                     data=json.dumps({"volume": {"level": 0.3}}).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.status == 200
    household.name = "Room"
    open_dashboard(browser, household)
    wait_until(lambda: attr(browser, "#device-picker", "hidden") is None, what="the device picker shown for 2 devices")
    options = browser.execute_script("return [...document.querySelectorAll('#device-picker option')].map(o => o.value)")
    assert options == ["Room", "Room 2"]
    # The closed picker cuts a long entry short; its title holds it whole.
    title = attr(browser, "#device-picker", "title")
    assert title == f"Room ({household.cast_addr[0]}:{household.cast_addr[1]})", title
    screenshot(browser, "6-household-room")
    browser.execute_script("const p = document.querySelector('#device-picker'); p.value = 'Room 2'; p.dispatchEvent(new Event('change'));")
    wait_until(lambda: text(browser, "#device-name") == "Room 2", what="the page for Room 2",
               details=lambda: f"#device-name={text(browser, '#device-name')!r} url={browser.current_url}")
    assert "device=Room+2" in browser.current_url or "device=Room%202" in browser.current_url
    wait_until(lambda: attr(browser, "#conn-status", "data-state") == "open", what="Room 2's event stream")
    assert browser.execute_script("return document.querySelector('#device-picker').value") == "Room 2"
    wait_until(lambda: attr(browser, "#volume", "data-level") == "0.3", what="Room 2's volume on its page",
               details=lambda: f"#volume={attr(browser, '#volume', 'data-level')!r}")
    screenshot(browser, "7-household-room-2")
    assert_console_clean(browser, "after switching devices")

    # A name no device has: the picker says so (before, it showed Room selected while the
    # page showed nothing, and picking Room then did nothing), and picking a device loads it.
    browser.get(household.control_url + "/?device=Nowhere")
    wait_until(lambda: attr(browser, "#device-picker", "hidden") is None, what="the device picker")
    shown = browser.execute_script("const p = document.querySelector('#device-picker'); return p.options[p.selectedIndex].textContent")
    assert shown == 'no device "Nowhere"', shown
    browser.execute_script("const p = document.querySelector('#device-picker'); p.value = 'Room'; p.dispatchEvent(new Event('change'));")
    wait_until(lambda: text(browser, "#device-name") == "Room", what="the page for Room after no device",
               details=lambda: f"#device-name={text(browser, '#device-name')!r} url={browser.current_url}")


def test_the_dashboard_of_a_castsim_with_a_token_opens_with_the_token_after_the_hash(
    castsim_factory: Callable[..., CastsimDevice],
    browser: WebDriver,
) -> None:
    device = castsim_factory(extra_args=("--control-token", "s3cret"))
    # The fragment never reaches the server: the page, its scripts and its style sheet come
    # without the token, the device's state and events with it (before, every file but the
    # page was a 401 and the page stayed unstyled at "Connecting...").
    browser.get(device.control_url + "/#token=s3cret")
    wait_until(lambda: attr(browser, "#conn-status", "data-state") == "open", timeout=15,
               what="the event stream with the token", details=lambda: f"toasts={toasts(browser)!r}")
    wait_until(lambda: text(browser, "#device-name") == device.name, what="the device name fetched with the token")
    # Styled: the style sheet loaded.
    assert computed(browser, "body", "margin") == "0px"
    screenshot(browser, "9-token")
    assert_console_clean(browser, "opening the dashboard with #token=")


def test_the_tv_shows_a_dashcast_page_and_a_home_assistant_view(
    device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender], browser: WebDriver
) -> None:
    from pychromecast.controllers.dashcast import DashCastController
    from pychromecast.controllers.homeassistant import HomeAssistantController

    sender = sender_factory(device)
    dashcast = DashCastController()
    sender.cast.register_handler(dashcast)
    dashcast.load_url("https://example.test/wall", reload_seconds=0)
    open_dashboard(browser, device)
    wait_until(lambda: text(browser, "#title") == "https://example.test/wall", what="the page on the TV",
               details=lambda: text(browser, "#tv"))
    assert text(browser, "#app-line") == "DashCast · web page"
    assert text(browser, "#app-panel-title") == "DashCast page"
    assert text(browser, '[data-panel-field="url"]') == "https://example.test/wall"
    screenshot(browser, "6-dashcast")

    hass = HomeAssistantController(hass_url="https://ha.example.test", hass_uuid="1234abcd", client_id=None,
                                   refresh_token="token", unregister=lambda: None, hass_connect_timeout=10)
    sender.cast.register_handler(hass)
    hass.show_lovelace_view("kitchen")
    wait_until(lambda: text(browser, "#title") == "View kitchen", what="the Home Assistant view on the TV",
               details=lambda: text(browser, "#tv"))
    assert text(browser, "#app-line") == "Home Assistant · https://ha.example.test"
    assert text(browser, '[data-panel-field="lovelacePath"]') == "kitchen"
    screenshot(browser, "7-home-assistant")
    assert_console_clean(browser, "with the receiver apps' panels")


def test_the_tv_shows_an_ad_break(castsim_factory: Callable[..., CastsimDevice], browser: WebDriver) -> None:
    device = castsim_factory(extra_args=("--manual-clock",))
    sender = CastConnection(device.host, CAST_PORT)
    try:
        sender.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}))
        sender.send(NS_RECEIVER, text=json.dumps({"type": "LAUNCH", "appId": "CC1AD845", "requestId": 1}))
        status = receive_until(
            sender, lambda ns, p: ns == NS_RECEIVER and p.get("type") == "RECEIVER_STATUS"
            and any(a.get("appId") == "CC1AD845" for a in p["status"].get("applications", [])), "the Default Media Receiver")
        transport = next(a["transportId"] for a in status["status"]["applications"] if a["appId"] == "CC1AD845")
        sender.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}), destination=transport)
        sender.send(NS_MEDIA, destination=transport, text=json.dumps({
            "type": "LOAD", "requestId": 2,
            "media": {"contentId": "http://example.test/show.mp4", "contentType": "video/mp4", "streamType": "BUFFERED", "duration": 1200,
                      "metadata": {"metadataType": 1, "title": "The show"},
                      "breaks": [{"id": "pre", "position": 0, "breakClipIds": ["ad1"]}],
                      "breakClips": [{"id": "ad1", "duration": 15, "whenSkippable": 5}]},
        }))
        receive_until(sender, lambda ns, p: ns == NS_MEDIA and p.get("requestId") == 2, "the LOAD's answer")
        open_dashboard(browser, device)
        wait_until(lambda: attr(browser, "#ad-break", "hidden") is None, what="the ad break on the TV")
        assert text(browser, "#ad-break") == "Ad · pre · ad1 0 s · skippable at 5 s"
        screenshot(browser, "7-ad-break")
        # The break over, the badge goes.
        request = urllib.request.Request(f"{device.control_url}/api/v1/clock/advance", data=b'{"by": "15s"}',
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        wait_until(lambda: attr(browser, "#ad-break", "hidden") is not None, what="the ad break gone from the TV")
        assert_console_clean(browser, "with an ad break")
    finally:
        sender.sock.close()


def test_the_tv_shows_the_mirrored_picture(castsim_factory: Callable[..., CastsimDevice], browser: WebDriver,
                                           tmp_path: Path) -> None:
    """cast_sender mirrors a red video: the dashboard's TV shows castsim's picture of it (the PNG
    fetched from the control API with the token), and its summary counts the video frames."""
    from streaming_media import hex_color, two_color_video
    from test_cast_streaming import log_tail, start_cast_sender

    device = castsim_factory()
    video = two_color_video(tmp_path / "red.mp4", first="red", second="red", switch_at=5, seconds=20, size=(640, 360))
    log = tmp_path / "cast_sender.log"
    driver = start_cast_sender(device, video, log, 12)
    try:
        open_dashboard(browser, device)
        wait_until(lambda: attr(browser, "#tv-picture", "hidden") is None and attr(browser, "#tv-picture", "data-average-color"),
                   timeout=30, what="the mirrored picture on the TV", details=lambda: log_tail(log))
        red, green, blue = hex_color(attr(browser, "#tv-picture", "data-average-color") or "#000000")
        assert red > 200 and green < 40 and blue < 40, (red, green, blue)
        # Drawn from the PNG castsim made (320 pixels wide), not a placeholder.
        assert browser.execute_script("return document.getElementById('tv-picture').naturalWidth") == 320
        assert "video frames" in (text(browser, "#app-line") or ""), text(browser, "#app-line")
        screenshot(browser, "8-mirroring")
        assert_console_clean(browser, "while mirroring")
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.communicate()
