"""End-to-end: the live dashboard (GET / on the control API) in headless chromium.

Each test starts its own castsim (conftest.py), drives it with senders over the Cast
channel, and watches and clicks the dashboard through selenium with Debian's chromium
and chromedriver. The page's data-* attributes are what the assertions read; the
control API (GET /api/v1/state) and pychromecast are the other side of every check.

Screenshots go to <repo>/.build/screenshots/ (gitignored) for a human to look at.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pychromecast.controllers.media import (
    MEDIA_PLAYER_STATE_PAUSED,
    MEDIA_PLAYER_STATE_PLAYING,
    STREAM_TYPE_BUFFERED,
)
from pychromecast.response_handler import WaitResponse
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from device_auth_verifier import CastConnection
from e2e_harness import CAST_PORT, REPO_ROOT, CastsimDevice, Sender, wait_until

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOTS = REPO_ROOT / ".build" / "screenshots"

NS_CONNECTION = "urn:x-cast:com.google.cast.tp.connection"
NS_RECEIVER = "urn:x-cast:com.google.cast.receiver"
NS_MEDIA = "urn:x-cast:com.google.cast.media"

# The dashboard keeps the newest LOG_MAX messages and renders only the rows in view.
LOG_MAX = 2000
LOG_COUNT_RE = re.compile(r"\((\d+) shown / (\d+) kept(?: · (\d+) seen)?\)")

# castsim never fetches media; port 1 on loopback makes sure nothing would be fetched.
MEDIA = "http://127.0.0.1:1"


# --------------------------------------------------------------------------
# the browser
# --------------------------------------------------------------------------


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    """Headless chromium at 1280x900, with the console log readable (get_log("browser"))."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.fail(
            f"{CHROMIUM} and {CHROMEDRIVER} are needed (Debian: apt-get install chromium "
            "chromium-driver; scripts/e2e-setup.sh does it as root)",
            pytrace=False,
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--window-size=1280,900",
        "--disable-gpu",
        # /dev/shm is small in containers; chromium then crashes tabs under load.
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-extensions",
        "--hide-scrollbars",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: selenium-manager never goes looking for (or downloading) one.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(10)
    try:
        yield driver
    finally:
        driver.quit()


def open_dashboard(browser: WebDriver, device: CastsimDevice) -> None:
    """Load http://CONTROL/ and wait for the event stream (#conn-status data-state=open)
    and the first state; the console must be clean at that point."""
    assert device.control_url, f"castsim has no control API: {device.ready_line}"
    browser.get(device.control_url + "/")
    wait_until(
        lambda: attr(browser, "#conn-status", "data-state") == "open",
        timeout=15,
        what="the dashboard's event stream to open (#conn-status[data-state=open])",
        details=lambda: f"conn-status={attr(browser, '#conn-status', 'data-state')!r} toasts={toasts(browser)!r}",
    )
    wait_until(lambda: text(browser, "#device-name") == device.name, what="the device name from GET /state",
               details=lambda: f"#device-name={text(browser, '#device-name')!r}")
    # The page names no icon, so chromium asks for /favicon.ico, which the control API
    # answers 404: a network error in the console that is not the dashboard's doing.
    errors = [
        entry for entry in browser.get_log("browser")
        if entry.get("level") == "SEVERE" and "/favicon.ico " not in entry.get("message", "")
    ]
    assert not errors, f"console errors while loading the dashboard: {errors}"


def attr(browser: WebDriver, selector: str, name: str) -> str | None:
    """An attribute of the first element matching selector (None when there is none)."""
    return browser.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
        selector,
        name,
    )


def text(browser: WebDriver, selector: str) -> str | None:
    return browser.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;", selector
    )


def toasts(browser: WebDriver) -> list[str]:
    return browser.execute_script("return [...document.querySelectorAll('#toasts .toast')].map(t => t.textContent);")


def click(browser: WebDriver, selector: str) -> None:
    """A real click (selenium scrolls the button into view first); retried if the
    element was re-rendered between finding and clicking it."""
    for _ in range(5):
        try:
            browser.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    browser.find_element(By.CSS_SELECTOR, selector).click()


def set_type_filter(browser: WebDriver, value: str) -> None:
    """Type into #log-filter-type like a user (input events; the page debounces 120 ms)."""
    box = browser.find_element(By.ID, "log-filter-type")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    if value:
        box.send_keys(value)


def log_rows(browser: WebDriver) -> list[dict]:
    """The message-log rows currently in the DOM (the log renders only those in view)."""
    return browser.execute_script(
        "return [...document.querySelectorAll('#log .log-row')].map(r => ({"
        " seq: Number(r.dataset.seq), direction: r.dataset.direction, type: r.dataset.type,"
        " namespace: r.dataset.namespace }));"
    )


def log_count(browser: WebDriver) -> tuple[int, int, int | None]:
    """#log-count "(N shown / M kept · S seen)" as (shown, kept, seen)."""
    value = text(browser, "#log-count") or ""
    match = LOG_COUNT_RE.fullmatch(value)
    assert match, f"#log-count reads {value!r}"
    return int(match[1]), int(match[2]), int(match[3]) if match[3] else None


def computed(browser: WebDriver, selector: str, prop: str) -> str:
    return browser.execute_script(
        "return getComputedStyle(document.querySelector(arguments[0])).getPropertyValue(arguments[1]);",
        selector,
        prop,
    )


def rgba(css: str) -> tuple[float, float, float, float]:
    """'rgb(255, 255, 0)' / 'rgba(0, 0, 0, 0.5)' -> (r, g, b, a)."""
    match = re.fullmatch(r"rgba?\(([^)]*)\)", css.strip())
    assert match, f"not a CSS rgb()/rgba() colour: {css!r}"
    parts = [float(p) for p in re.split(r"[,\s/]+", match[1].strip()) if p]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0)


def screenshot(browser: WebDriver, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"dashboard-{name}.png"
    assert browser.save_screenshot(str(path)), f"could not save {path}"
    return path


# --------------------------------------------------------------------------
# the control API and the senders
# --------------------------------------------------------------------------


def api_get(device: CastsimDevice, path: str) -> Any:
    with urllib.request.urlopen(f"{device.control_url}/api/v1/{path}", timeout=10) as response:
        assert response.status == 200, f"GET /api/v1/{path}: {response.status}"
        return json.loads(response.read().decode("utf-8"))


def api_media(device: CastsimDevice) -> dict:
    return api_get(device, "state").get("media") or {}


def media_info(title: str, *, with_tracks: bool = False) -> dict:
    media: dict[str, Any] = {
        "contentId": f"{MEDIA}/{title.lower().replace(' ', '-')}.mp4",
        "contentType": "video/mp4",
        "streamType": STREAM_TYPE_BUFFERED,
        "metadata": {"metadataType": 0, "title": title},
    }
    if with_tracks:
        media["tracks"] = [
            {"trackId": 1, "type": "TEXT", "subtype": "SUBTITLES", "language": "en-US", "name": "English",
             "trackContentId": f"{MEDIA}/subtitles.en.vtt", "trackContentType": "text/vtt"},
            {"trackId": 2, "type": "AUDIO", "language": "fr-FR", "name": "Français"},
        ]
        media["textTrackStyle"] = TEXT_TRACK_STYLE
    return media


TEXT_TRACK_STYLE = {
    "foregroundColor": "#FFFF00FF",
    "backgroundColor": "#00000080",
    "edgeType": "OUTLINE",
    "edgeColor": "#000000FF",
    "fontScale": 1.5,
}
FIRST_TITLE = "Dashboard Feature One"
SECOND_TITLE = "Dashboard Feature Two"


def load_queue(sender: Sender) -> dict:
    """LAUNCH the Default Media Receiver (pychromecast does it before sending on the
    media namespace) and LOAD a queue of two items, subtitles on, a text track style."""
    first = media_info(FIRST_TITLE, with_tracks=True)
    load = {
        "type": "LOAD",
        "media": first,
        "autoplay": True,
        "currentTime": 0,
        "activeTrackIds": [1, 2],
        "queueData": {
            "items": [
                {"media": first, "autoplay": True},
                {"media": media_info(SECOND_TITLE), "autoplay": True},
            ],
            "startIndex": 0,
        },
    }
    handler = WaitResponse(10.0, "LAUNCH + LOAD with queueData")
    sender.media.send_message(load, inc_session_id=True, callback_function=handler.callback)
    handler.wait_response()
    assert handler.response is not None and handler.response.get("type") == "MEDIA_STATUS", (
        f"LOAD was answered with {handler.response!r}"
    )
    sender.media.block_until_active(timeout=10)
    return handler.response


def wait_player_state(sender: Sender, state: str, why: str) -> None:
    wait_until(lambda: sender.media.status.player_state == state, what=f"pychromecast sees {state} {why}",
               details=sender.describe)


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
        wait_until(lambda: attr(browser, "#emp-panel", "hidden") is None, what="the EMP panel to show")
        wait_until(lambda: text(browser, '[data-emp-field="channelId"]') == "news-24", what="the channel in the EMP panel",
                   details=lambda: text(browser, "#emp"))
        assert text(browser, '[data-emp-field="programId"]') == "morning"
        assert "airplayBlocked" in (text(browser, '[data-emp-field="entitlement"]') or "")

        # Across the program boundary on the manual clock: the panel follows, live.
        request = urllib.request.Request(f"{device.control_url}/api/v1/clock/advance", data=b'{"by": "11m"}',
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        wait_until(lambda: text(browser, '[data-emp-field="programId"]') == "weather", what="the new program in the EMP panel",
                   details=lambda: text(browser, "#emp"))
        wait_until(lambda: "programchanged" in (text(browser, "#emp-events") or ""), what="programchanged in the last EMP events",
                   details=lambda: text(browser, "#emp-events"))
        assert "EMP" in (text(browser, "#emp-line") or "")
        screenshot(browser, "5-emp")
    finally:
        sender.sock.close()


# --------------------------------------------------------------------------
# the recording player (recording.js)
# --------------------------------------------------------------------------

RECORDING = Path(__file__).parent / "fixtures" / "queue-recording.jsonl"


def recording_events() -> list[dict]:
    """The fixture's events (line 2 on), as the dashboard numbers its steps: step k is events[k - 1]."""
    lines = RECORDING.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "castsim-recording" and header["version"] == 1, header
    return [json.loads(line) for line in lines[1:]]


def step_of(events: list[dict], wanted: Callable[[dict], bool], what: str) -> int:
    """The step (1-based) of the first event that is wanted."""
    for index, event in enumerate(events):
        if wanted(event):
            return index + 1
    raise AssertionError(f"the fixture has no {what}")


def reply_to(events: list[dict], request_type: str) -> int:
    """The step of the device's answer to the sender's first `request_type` (the same requestId)."""
    request = next(e for e in events if e["event"] == "message" and e["direction"] == "in"
                   and e["payload"].get("type") == request_type)
    request_id = request["payload"]["requestId"]
    return step_of(events, lambda e: e["event"] == "message" and e["direction"] == "out"
                   and e["payload"].get("requestId") == request_id, f"reply to {request_type}")


def open_recording(browser: WebDriver, path: Path) -> None:
    """What a user does: choose the file in the "Open recording…" file input."""
    browser.find_element(By.CSS_SELECTOR, '[data-testid="recording-input"]').send_keys(str(path))


def current_step(browser: WebDriver) -> str | None:
    return text(browser, '[data-testid="recording-step"]')


def wait_step(browser: WebDriver, step: int, total: int) -> None:
    wait_until(lambda: current_step(browser) == f"{step} / {total}", what=f"recording step {step} / {total}",
               details=lambda: f"step={current_step(browser)!r} toasts={toasts(browser)!r}")
    highlighted = browser.execute_script(
        "return [...document.querySelectorAll('#recording-events .rec-row.current')].map(r => Number(r.dataset.step));")
    assert highlighted == ([step] if step else []), f"highlighted rows {highlighted} at step {step}"


def row_in_view(browser: WebDriver, step: int) -> bool:
    return browser.execute_script(
        "const list = document.getElementById('recording-events');"
        "const row = list.querySelector(`.rec-row[data-step='${arguments[0]}']`);"
        "const a = list.getBoundingClientRect(), b = row.getBoundingClientRect();"
        "return b.top >= a.top - 1 && b.bottom <= a.bottom + 1;", step)


def press(browser: WebDriver, key: str) -> None:
    """A key pressed on the page (not in a field)."""
    body = browser.find_element(By.TAG_NAME, "body")
    browser.execute_script("document.activeElement && document.activeElement.blur();")
    body.send_keys(key)


def act(device: CastsimDevice, body: dict) -> None:
    request = urllib.request.Request(f"{device.control_url}/api/v1/act", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_a_recording_opens_and_steps_through_what_the_senders_saw(
    castsim_factory: Callable[..., CastsimDevice], browser: WebDriver
) -> None:
    device = castsim_factory()
    events = recording_events()
    total = len(events)
    loaded = reply_to(events, "QUEUE_LOAD")
    next_item = reply_to(events, "QUEUE_NEXT")
    paused = reply_to(events, "PAUSE")
    volume = reply_to(events, "SET_VOLUME")
    assert loaded < next_item < paused < volume < total, (loaded, next_item, paused, volume, total)

    open_dashboard(browser, device)
    assert attr(browser, '[data-testid="recording-banner"]', "hidden") is not None, "no banner while live"
    open_recording(browser, RECORDING)

    # The banner: replay mode, the file, the recorded device, its source, the event count.
    wait_until(lambda: attr(browser, '[data-testid="recording-banner"]', "hidden") is None, what="the replay banner",
               details=lambda: f"toasts={toasts(browser)!r}")
    assert text(browser, '[data-testid="recording-file"]') == RECORDING.name
    assert text(browser, '[data-testid="recording-device"]') == "Living Room TV"
    assert text(browser, '[data-testid="recording-source"]') == "device"
    assert text(browser, '[data-testid="recording-count"]') == f"{total} events"
    assert attr(browser, '[data-testid="recording-skipped"]', "hidden") is not None
    assert text(browser, "#device-name") == "Living Room TV", "the top bar names the recorded device"
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#recording-events .rec-row')].map(r => ({step: Number(r.dataset.step),"
        " type: r.dataset.type, text: r.textContent}));")
    assert [r["step"] for r in rows] == list(range(1, total + 1))
    assert [r["type"] for r in rows][:3] == ["connected", "CONNECT", "GET_STATUS"], rows[:3]
    assert "→" in rows[2]["text"] and "receiver" in rows[2]["text"], rows[2]
    assert "←" in rows[loaded - 1]["text"] and "Track One" in rows[loaded - 1]["text"], rows[loaded - 1]
    # Step 0: before the first event, nothing plays and the device controls are off.
    wait_step(browser, 0, total)
    assert text(browser, "#app-name") == "No app running"
    assert attr(browser, "#tv", "data-player-state") == ""
    assert browser.find_element(By.CSS_SELECTOR, "button[data-action=pause]").get_attribute("disabled") is not None
    assert browser.find_element(By.CSS_SELECTOR, '[data-testid="recording-prev"]').get_attribute("disabled") is not None

    # Next, step by step, to the answer to QUEUE_LOAD: the first track plays.
    for step in range(1, loaded + 1):
        click(browser, '[data-testid="recording-next"]')
        wait_step(browser, step, total)
        if step == loaded - 1:
            # The LAUNCH answer: the app runs; the loading status shows the first item, IDLE.
            assert text(browser, "#app-name") == "Default Media Receiver"
            assert attr(browser, "#tv", "data-app-id") == "CC1AD845"
    assert text(browser, "#title") == "Track One"
    assert text(browser, "#player-state") == "PLAYING"
    assert attr(browser, "#tv", "data-player-state") == "PLAYING"
    assert text(browser, "#media-subtitle") == "The Testers · Castsim Sessions"
    assert text(browser, "#text-track") == "English (en)"
    assert attr(browser, "#subtitle-sample", "data-foreground-color") == "#FFFF00FF"
    queue = browser.execute_script(
        "return [...document.querySelectorAll('#queue li[data-item-id]')].map(li => [li.querySelector('.qtitle').textContent,"
        " li.classList.contains('current')]);")
    assert queue == [["Track One", True], ["Track Two", False], ["Track Three", False]], queue
    assert text(browser, '[data-testid="recording-time"]') == f"t = {events[loaded - 1]['t']:.3f} s"
    senders = browser.execute_script(
        "return [...document.querySelectorAll('#senders .conn')].map(c => [c.dataset.connectionId,"
        " c.querySelectorAll('.sender[data-sender-id]').length, c.querySelectorAll('button').length]);")
    assert senders == [["1", 2, 0]], f"connection 1, two virtual connections, no buttons in a replay: {senders}"
    assert row_in_view(browser, loaded)
    screenshot(browser, "6-recording-playing")

    # Arrow keys: on to the QUEUE_NEXT answer, "Track Two", the queue's current item follows.
    for step in range(loaded + 1, next_item + 1):
        press(browser, Keys.ARROW_RIGHT)
        wait_step(browser, step, total)
    assert text(browser, "#title") == "Track Two"
    assert text(browser, "#player-state") == "PLAYING"
    assert text(browser, "#text-track") == "off"
    assert text(browser, "#queue li.current .qtitle") == "Track Two"

    # A click on a row jumps there: the PAUSE answer (no media in it: Track Two stays).
    click(browser, f"#recording-events .rec-row[data-step='{paused}']")
    wait_step(browser, paused, total)
    assert text(browser, "#title") == "Track Two"
    assert text(browser, "#player-state") == "PAUSED"
    assert attr(browser, "#position", "data-seconds") == "12.5", "currentTime of the last MEDIA_STATUS, not ticking"
    time.sleep(0.5)
    assert attr(browser, "#position", "data-seconds") == "12.5", "no ticking in a replay"

    # Live changes while a recording is open do not reach its view.
    act(device, {"volume": {"level": 0.55}})
    wait_until(lambda: abs(api_get(device, "state")["volume"]["level"] - 0.55) < 1e-6, what="live volume 0.55")
    time.sleep(0.5)
    assert text(browser, "#volume") == "100%"

    # The SET_VOLUME answer: 30 %.
    for step in range(paused + 1, volume + 1):
        press(browser, Keys.ARROW_RIGHT)
        wait_step(browser, step, total)
    assert text(browser, "#volume") == "30%"
    assert attr(browser, "#volume", "data-level") == "0.3"
    assert text(browser, "#tv-volume") == "Vol 30%"
    assert text(browser, "#player-state") == "PAUSED"
    screenshot(browser, "7-recording-volume")
    click(browser, '[data-testid="recording-prev"]')
    wait_step(browser, volume - 1, total)
    assert text(browser, "#volume") == "100%"

    # To the end: the sender disconnected.
    for step in range(volume, total + 1):
        press(browser, Keys.ARROW_RIGHT)
        wait_step(browser, step, total)
    press(browser, Keys.ARROW_RIGHT)
    wait_step(browser, total, total)
    assert browser.execute_script("return document.querySelectorAll('#senders .conn').length;") == 0
    assert browser.find_element(By.CSS_SELECTOR, '[data-testid="recording-next"]').get_attribute("disabled") is not None

    # The slider back to 0 (Home on the range input): an idle TV.
    slider = browser.find_element(By.CSS_SELECTOR, '[data-testid="recording-slider"]')
    slider.send_keys(Keys.HOME)
    wait_step(browser, 0, total)
    assert text(browser, "#app-name") == "No app running"
    assert attr(browser, "#tv", "data-player-state") == ""
    assert text(browser, "#title") == ""
    assert text(browser, "#volume") == "100%"

    # Back to live: the live device again, with what changed meanwhile.
    click(browser, '[data-testid="recording-close"]')
    wait_until(lambda: attr(browser, '[data-testid="recording-banner"]', "hidden") is not None, what="the banner to go")
    wait_until(lambda: text(browser, "#volume") == "55%", what="the live volume (55%) again",
               details=lambda: f"#volume={text(browser, '#volume')!r}")
    assert text(browser, "#device-name") == device.name
    live_app = api_get(device, "state")["app"]
    assert text(browser, "#app-name") == (live_app["displayName"] if live_app else "No app running"), live_app
    assert attr(browser, "#recording-panel", "hidden") is not None
    assert browser.find_element(By.CSS_SELECTOR, "button[data-action=pause]").get_attribute("disabled") is None
    errors = [e for e in browser.get_log("browser")
              if e.get("level") == "SEVERE" and "/favicon.ico " not in e.get("message", "")]
    assert not errors, f"console errors: {errors}"


def test_a_malformed_recording_is_named_by_its_line(
    castsim_factory: Callable[..., CastsimDevice], browser: WebDriver, tmp_path: Path
) -> None:
    device = castsim_factory()
    open_dashboard(browser, device)
    good = RECORDING.read_text(encoding="utf-8").splitlines()

    def error_toasts() -> list[str]:
        return browser.execute_script("return [...document.querySelectorAll('#toasts .toast.error')].map(t => t.textContent);")

    def clear_toasts() -> None:
        browser.execute_script("document.getElementById('toasts').replaceChildren();")

    # Not JSON Lines at all.
    not_jsonl = tmp_path / "notes.jsonl"
    not_jsonl.write_text("this is not a recording\n")
    open_recording(browser, not_jsonl)
    wait_until(lambda: any("line 1" in t and "not JSON" in t for t in error_toasts()), what="a toast naming line 1",
               details=lambda: str(toasts(browser)))
    assert any("notes.jsonl" in t and "castsim-recording" in t for t in error_toasts()), error_toasts()
    assert attr(browser, '[data-testid="recording-banner"]', "hidden") is not None, "nothing opened"

    # A version this dashboard does not read.
    clear_toasts()
    future = tmp_path / "future.jsonl"
    header = json.loads(good[0]) | {"version": 2}
    future.write_text("\n".join([json.dumps(header), *good[1:]]) + "\n")
    open_recording(browser, future)
    wait_until(lambda: any("line 1" in t and "version 2" in t and "expected 1" in t for t in error_toasts()),
               what="a toast about the version", details=lambda: str(toasts(browser)))
    assert attr(browser, '[data-testid="recording-banner"]', "hidden") is not None

    # Another format.
    clear_toasts()
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"format": "pcap", "version": 1}) + "\n")
    open_recording(browser, other)
    wait_until(lambda: any("line 1" in t and '"pcap"' in t and 'expected "castsim-recording"' in t for t in error_toasts()),
               what="a toast about the format", details=lambda: str(toasts(browser)))

    # A bad line in the middle (line 6) and one without "t" (line 9): skipped, counted, named.
    clear_toasts()
    broken = list(good)
    broken[5] = broken[5][: len(broken[5]) // 2]
    broken[8] = json.dumps({"event": "message", "direction": "in"})
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join(broken) + "\n")
    open_recording(browser, damaged)
    wait_until(lambda: attr(browser, '[data-testid="recording-banner"]', "hidden") is None, what="the damaged recording to open")
    wait_until(lambda: any("damaged.jsonl line 6" in t and "not JSON" in t and "2 bad lines skipped" in t for t in error_toasts()),
               what="a toast naming line 6 and the count", details=lambda: str(toasts(browser)))
    assert text(browser, '[data-testid="recording-skipped"]') == "2 bad lines skipped"
    assert "line 9" in (attr(browser, '[data-testid="recording-skipped"]', "title") or "")
    total = len(good) - 1 - 2
    assert text(browser, '[data-testid="recording-count"]') == f"{total} events"
    assert current_step(browser) == f"0 / {total}"

    # Still usable: step on, then back to live, and the live controls work.
    click(browser, '[data-testid="recording-next"]')
    wait_step(browser, 1, total)
    click(browser, '[data-testid="recording-close"]')
    wait_until(lambda: attr(browser, '[data-testid="recording-banner"]', "hidden") is not None, what="the banner to go")
    click(browser, "button[data-action=launch-dmr]")
    wait_until(lambda: text(browser, "#app-name") == "Default Media Receiver", what="the live device to launch the DMR")


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
