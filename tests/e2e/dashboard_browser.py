"""The dashboard end-to-end tests' browser and helpers: Debian's headless chromium through
selenium, the page's elements as the tests read them, screenshots (to <repo>/.build/screenshots/,
gitignored, for a human to look at), and the senders and media the tests use."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pychromecast.controllers.media import STREAM_TYPE_BUFFERED
from pychromecast.response_handler import WaitResponse
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from e2e_harness import REPO_ROOT, CastsimDevice, Sender, wait_until

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
    assert_console_clean(browser, "while loading the dashboard")


def assert_console_clean(browser: WebDriver, when: str) -> None:
    """No error in the console since the last look (get_log hands each entry out once): a
    script that throws in a handler (a click, an event from the stream) shows up here."""
    # The page names an empty icon: a request for /favicon.ico (a 404) would show here.
    errors = [entry for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]
    assert not errors, f"console errors {when}: {errors}"


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
