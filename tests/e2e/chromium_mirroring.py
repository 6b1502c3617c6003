"""Drives headless Chromium's Cast support through the DevTools protocol, inside the sender's
network namespace (Chromium's Cast discovery ignores loopback): it serves a page of one colour
on localhost, opens it, waits until Chromium lists the castsim sink, and mirrors the tab to it
(--mode mirror), or clicks a button whose handler starts a Presentation API request for
--presentation-url and sends a LOAD through the presentation connection (--mode presentation).

    chromium_mirroring.py --sink NAME --cert root.crt --color '#00c000' --seconds 20 --profile DIR
    chromium_mirroring.py --mode presentation [--then-mirror] --sink NAME --cert root.crt --profile DIR

Prints JSON lines as things happen ({"event": "sinks", ...}, {"event": "mirroring"}, {"event":
"issue", ...}, {"event": "presentation", ...}, {"event": "message", ...}, {"event": "done"}, or
{"event": "error", ...}), for the test in the host namespace to read.

Why the waits before Cast.startTabMirroring and before the click (Chromium 156,
chrome/browser/devtools/protocol/cast_handler.cc): CastHandler::StartTabMirroring and
CastHandler::StartPresentation call

    query_result_manager_->GetSourceForCastModeAndSink(mode, sink_id)->id()

without checking for null. GetSourceForCastModeAndSink() is null while Chromium does not yet
know the sink to be compatible with that mode's source, and the null dereference kills the
whole browser process (SIGSEGV), which the driver sees as its DevTools connection lost.
 - Tab mirroring: Cast.sinksUpdated lists a sink as soon as it is compatible with *any*
   observed source (the desktop-mirroring source comes in its own update); the update for the
   tab source can come a moment later. A command sent on the first listing can land between
   the two (a race: about 1 in 3 on loaded CI machines). So: wait until the sink is listed and
   no Cast.sinksUpdated has come for SETTLE seconds.
 - Presentation API: the presentation URL's source is only registered at the click, so its
   compatibility is never known then: always a crash. So: Cast.enable with presentationUrl
   (the handler then observes that source ahead of time), the page watches the request's
   availability until true, the same settle wait, then Cast.setSinkToUse and the click.
"""

from __future__ import annotations

import argparse
import http.server
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import websocket

SETTLE = 2.0  # seconds without a Cast.sinksUpdated before a Cast command that names the sink


def say(**fields) -> None:  # type: ignore[no-untyped-def]
    print(json.dumps(fields), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ConnectionLost(Exception):
    pass


class CDP:
    """One page target's DevTools connection: commands by id, events kept in order (a reader
    thread takes every message as it comes, with the time it came)."""

    def __init__(self, url: str) -> None:
        self.socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.socket.settimeout(None)
        self.next_id = 0
        self.events: list[dict] = []
        self.replies: dict[int, dict] = {}
        self.lost: str | None = None
        self.last_event: dict[str, float] = {}
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                message = json.loads(self.socket.recv())
            except Exception as error:  # noqa: BLE001
                with self.changed:
                    self.lost = repr(error)
                    self.changed.notify_all()
                return
            with self.changed:
                if "id" in message:
                    self.replies[message["id"]] = message
                elif "method" in message:
                    self.events.append(message)
                    self.last_event[message["method"]] = time.monotonic()
                self.changed.notify_all()

    def call(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        with self.changed:
            self.next_id += 1
            wanted = self.next_id
        try:
            self.socket.send(json.dumps({"id": wanted, "method": method, "params": params or {}}))
        except Exception as error:  # noqa: BLE001
            raise ConnectionLost(f"{method}: {error!r}") from error
        deadline = time.monotonic() + timeout
        with self.changed:
            while wanted not in self.replies:
                if self.lost:
                    raise ConnectionLost(f"{method}: {self.lost}")
                if not self.changed.wait(max(0.0, deadline - time.monotonic())) and time.monotonic() >= deadline:
                    raise TimeoutError(method)
            message = self.replies.pop(wanted)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result", {})

    def wait_event(self, method: str, predicate, timeout: float):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for event in self.events:
                    if event.get("method") == method and predicate(event.get("params", {})):
                        self.events.remove(event)
                        return event["params"]
                if self.lost:
                    raise ConnectionLost(f"waiting for {method}: {self.lost}")
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(left)

    def quiet(self, method: str, seconds: float, timeout: float) -> bool:
        """True once no `method` event has come for `seconds` (False after `timeout`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.lost:
                raise ConnectionLost(f"waiting for {method} to settle: {self.lost}")
            since = time.monotonic() - self.last_event.get(method, 0.0)
            if since >= seconds:
                return True
            time.sleep(min(seconds - since, 0.2))
        return False

    def evaluate(self, expression: str, timeout: float = 30):  # type: ignore[no-untyped-def]
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                           timeout=timeout)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")


PAGE_SCRIPT = """
window.castLog = [];
window.castRequest = new PresentationRequest(%(urls)s);
window.castAvailability = null;
window.watchAvailability = () => castRequest.getAvailability().then(a => {
  window.castAvailability = a; a.onchange = () => castLog.push({availability: a.value}); return a.value; });
document.getElementById('start').onclick = async () => {
  castLog.push({click: true});
  try {
    const c = await castRequest.start();
    window.castConnection = c;
    castLog.push({connection: c.id, state: c.state});
    c.onconnect = () => castLog.push({state: 'connected'});
    c.onclose = e => castLog.push({state: 'closed', reason: e.reason, message: e.message});
    c.onterminate = () => castLog.push({state: 'terminated'});
    c.onmessage = e => castLog.push({message: e.data});
  } catch (e) { castLog.push({error: e.name + ': ' + e.message}); }
};
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sink", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--color", default="#00c000")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--profile", required=True)
    parser.add_argument("--mode", choices=("mirror", "presentation"), default="mirror")
    parser.add_argument("--presentation-url", default="cast:CC1AD845?clientId=castsim-e2e")
    parser.add_argument("--content-id", default="https://example.invalid/castsim/e2e.mp4")
    parser.add_argument("--settle", type=float, default=SETTLE)
    parser.add_argument("--then-mirror", action="store_true",
                        help="--mode presentation: once MEDIA_STATUS came, mirror the tab to the same sink")
    parser.add_argument("--chromium-log", help="Chromium's stderr, with Cast and presentation logging, to this file")
    args = parser.parse_args()

    script = PAGE_SCRIPT % {"urls": json.dumps([args.presentation_url])}
    page = (f"<!doctype html><html><body style='margin:0;background:{args.color};height:100vh'>"
            "<button id=start style='position:absolute;left:40px;top:40px;width:200px;height:80px'>Cast</button>"
            f"<script>{script}</script></body></html>").encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    devtools = free_port()
    chromium = subprocess.Popen([
        "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        f"--user-data-dir={args.profile}", f"--remote-debugging-port={devtools}", "--window-size=1280,720",
        f"--cast-developer-certificate-path={args.cert}", "--autoplay-policy=no-user-gesture-required",
        *(("--enable-logging=stderr", "--vmodule=*media_router*=2,*cast*=2,*presentation*=2") if args.chromium_log else ()),
        f"http://127.0.0.1:{server.server_address[1]}/",
    ], stdout=subprocess.DEVNULL, stderr=open(args.chromium_log, "w") if args.chromium_log else subprocess.DEVNULL)
    try:
        try:
            return drive(args, devtools)
        except ConnectionLost as error:
            # Chromium's browser process gone is the usual reason: say how it ended.
            try:
                code = chromium.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            say(event="error", reason=f"DevTools connection lost ({error})", chromiumExit=code)
            return 1
    finally:
        chromium.terminate()
        try:
            chromium.wait(timeout=10)
        except subprocess.TimeoutExpired:
            chromium.kill()
        server.shutdown()


def sink_listed(name: str):  # type: ignore[no-untyped-def]
    return lambda p: any(s.get("name") == name for s in p.get("sinks", []))


def drive(args: argparse.Namespace, devtools: int) -> int:
    target = None
    deadline = time.monotonic() + 30
    while target is None and time.monotonic() < deadline:
        try:
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{devtools}/json", timeout=2))
            target = next((t for t in targets if t.get("type") == "page"), None)
        except OSError:
            pass
        if target is None:
            time.sleep(0.2)
    if target is None:
        say(event="error", reason="no DevTools page target")
        return 1
    cdp = CDP(target["webSocketDebuggerUrl"])
    # The page's script must have run (it defines the request and the button's handler).
    deadline = time.monotonic() + 30
    while not cdp.evaluate("document.readyState === 'complete' && typeof watchAvailability === 'function'"):
        if time.monotonic() > deadline:
            say(event="error", reason="the page never loaded")
            return 1
        time.sleep(0.1)

    if args.mode == "presentation":
        # Observe the presentation URL's source from now on (see the module's docstring).
        cdp.call("Cast.enable", {"presentationUrl": args.presentation_url})
    else:
        cdp.call("Cast.enable", {})
    sinks = cdp.wait_event("Cast.sinksUpdated", sink_listed(args.sink), timeout=60)
    if sinks is None:
        say(event="error", reason=f"Chromium never listed the sink {args.sink!r}", seen=[e.get("params") for e in cdp.events][-5:])
        return 1
    say(event="sinks", sinks=sinks.get("sinks"))
    if args.mode == "presentation":
        deadline = time.monotonic() + 30
        available = cdp.evaluate("watchAvailability()")
        while not available and time.monotonic() < deadline:
            time.sleep(0.2)
            available = cdp.evaluate("castAvailability && castAvailability.value")
        if not available:
            say(event="error", reason=f"{args.presentation_url} never became available", log=cdp.evaluate("castLog"))
            return 1
        say(event="available", url=args.presentation_url)
    if not cdp.quiet("Cast.sinksUpdated", args.settle, timeout=30):
        say(event="error", reason="Cast.sinksUpdated never settled")
        return 1

    if args.mode == "mirror":
        mirror(cdp, args)
    elif presentation(cdp, args) and args.then_mirror:
        # The sink's sessions change (the presentation's app is running): let the updates land.
        if not cdp.quiet("Cast.sinksUpdated", args.settle, timeout=30):
            say(event="error", reason="Cast.sinksUpdated never settled after the presentation")
            return 1
        mirror(cdp, args)

    try:
        cdp.call("Cast.stopCasting", {"sinkName": args.sink}, timeout=10)
    except Exception as error:  # noqa: BLE001
        say(event="stop", error=str(error))
    say(event="done")
    return 0


def mirror(cdp: CDP, args: argparse.Namespace) -> None:
    cdp.call("Cast.startTabMirroring", {"sinkName": args.sink})
    say(event="mirroring")
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        issue = cdp.wait_event("Cast.issueUpdated", lambda p: True, timeout=max(0.1, end - time.monotonic()))
        if issue is not None:
            say(event="issue", issue=issue.get("issueMessage"))


def presentation(cdp: CDP, args: argparse.Namespace) -> bool:
    """True once MEDIA_STATUS for the LOAD came back through the presentation connection."""
    cdp.call("Cast.setSinkToUse", {"sinkName": args.sink})
    box = cdp.evaluate("(r => [r.left + r.width / 2, r.top + r.height / 2])(document.getElementById('start').getBoundingClientRect())")
    for kind in ("mousePressed", "mouseReleased"):
        cdp.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})
    say(event="clicked")
    seen = 0
    session_id = None
    loaded = False
    end = time.monotonic() + max(args.seconds, 30)
    while time.monotonic() < end:
        log = cdp.evaluate("castLog")
        for entry in log[seen:]:
            if "message" in entry:
                try:
                    message = json.loads(entry["message"])
                except ValueError:
                    message = entry["message"]
                say(event="message", message=message)
                if isinstance(message, dict) and message.get("type") == "new_session":
                    session_id = (message.get("message") or {}).get("sessionId")
                if isinstance(message, dict) and message.get("type") == "v2_message" \
                        and (message.get("message") or {}).get("type") == "MEDIA_STATUS" and loaded:
                    say(event="media_status", status=message["message"].get("status"))
                    return True
            else:
                say(event="presentation", **entry)
                if entry.get("error"):
                    return False
        seen = len(log)
        if session_id and not loaded and cdp.evaluate("castConnection && castConnection.state") == "connected":
            # The Cast SDK's own envelope: Chromium's CastSessionClient passes a v2_message of a
            # media type to the receiver's media namespace, and its answers back the same way.
            load = {"type": "v2_message", "clientId": args.presentation_url.split("clientId=")[-1], "sequenceNumber": 1,
                    "timeoutMillis": 0,
                    "message": {"type": "LOAD", "requestId": 1, "sessionId": session_id, "autoplay": True,
                                "media": {"contentId": args.content_id, "contentType": "video/mp4", "streamType": "BUFFERED"}}}
            cdp.evaluate(f"castConnection.send({json.dumps(json.dumps(load))})")
            say(event="sent", message=load)
            loaded = True
        time.sleep(0.2)
    say(event="error", reason="no MEDIA_STATUS through the presentation connection")
    return False


if __name__ == "__main__":
    sys.exit(main())
