"""End-to-end: the dashboard's recording player (Open recording…) in headless chromium:
a recording opens, steps through what the senders saw, and a malformed one is named by its
line."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from dashboard_browser import (  # noqa: F401 - browser is a fixture
    api_get,
    attr,
    browser,
    click,
    open_dashboard,
    screenshot,
    assert_console_clean,
    text,
    toasts,
)
from e2e_harness import CastsimDevice, wait_until

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
    assert_console_clean(browser, "after a recording was played and closed")


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
