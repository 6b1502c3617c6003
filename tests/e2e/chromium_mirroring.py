"""Drives headless Chromium's Cast support through the DevTools protocol, inside the sender's
network namespace (Chromium's Cast discovery ignores loopback): it serves a page of one colour
on localhost, opens it, waits until Chromium lists the castsim sink, and mirrors the tab to it.

    chromium_mirroring.py --sink NAME --cert root.crt --color '#00c000' --seconds 20 --profile DIR

Prints JSON lines as things happen ({"event": "sinks", ...}, {"event": "mirroring"}, {"event":
"issue", ...}, {"event": "done"}), for the test in the host namespace to read.
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


def say(**fields) -> None:  # type: ignore[no-untyped-def]
    print(json.dumps(fields), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CDP:
    """One page target's DevTools connection: commands by id, events kept in order."""

    def __init__(self, url: str) -> None:
        self.socket = websocket.create_connection(url, timeout=30)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        self.next_id += 1
        wanted = self.next_id
        self.socket.send(json.dumps({"id": wanted, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.socket.recv())
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)
        raise TimeoutError(method)

    def wait_event(self, method: str, predicate, timeout: float):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if event.get("method") == method and predicate(event.get("params", {})):
                    self.events.remove(event)
                    return event["params"]
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                message = json.loads(self.socket.recv())
            except websocket.WebSocketTimeoutException:
                continue
            if "method" in message:
                self.events.append(message)
        return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sink", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--color", default="#00c000")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--profile", required=True)
    args = parser.parse_args()

    page = f"<!doctype html><html><body style='margin:0;background:{args.color};height:100vh'></body></html>".encode()

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
        f"http://127.0.0.1:{server.server_address[1]}/",
    ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        target = None
        deadline = time.monotonic() + 30
        while target is None and time.monotonic() < deadline:
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{devtools}/json", timeout=2))
                target = next((t for t in targets if t.get("type") == "page"), None)
            except OSError:
                time.sleep(0.2)
        if target is None:
            say(event="error", reason="no DevTools page target")
            return 1
        cdp = CDP(target["webSocketDebuggerUrl"])
        cdp.call("Cast.enable", {})
        sinks = cdp.wait_event("Cast.sinksUpdated", lambda p: any(s.get("name") == args.sink for s in p.get("sinks", [])), timeout=60)
        if sinks is None:
            say(event="error", reason=f"Chromium never listed the sink {args.sink!r}", seen=[e.get("params") for e in cdp.events][-5:])
            return 1
        say(event="sinks", sinks=sinks.get("sinks"))
        cdp.call("Cast.startTabMirroring", {"sinkName": args.sink})
        say(event="mirroring")
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            issue = cdp.wait_event("Cast.issueUpdated", lambda p: True, timeout=max(0.1, end - time.monotonic()))
            if issue is not None:
                say(event="issue", issue=issue.get("issueMessage"))
        try:
            cdp.call("Cast.stopCasting", {"sinkName": args.sink}, timeout=10)
        except Exception as error:  # noqa: BLE001
            say(event="stop", error=str(error))
        say(event="done")
        return 0
    finally:
        chromium.terminate()
        try:
            chromium.wait(timeout=10)
        except subprocess.TimeoutExpired:
            chromium.kill()
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
