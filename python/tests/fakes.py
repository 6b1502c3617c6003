"""Stand-ins for the tests that need no castsim binary: an HTTP server with canned
answers (in a thread, on 127.0.0.1) and a fake `castsim` executable."""

from __future__ import annotations

import json
import sys
import textwrap
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union


@dataclass
class Recorded:
    method: str
    path: str
    query: Dict[str, List[str]]
    headers: Dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Canned:
    status: int = 200
    body: Union[bytes, str, Any] = b""
    content_type: str = "application/json"
    headers: Dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body).encode()


Route = Union[Canned, Callable[[Recorded, BaseHTTPRequestHandler], Optional[Canned]]]


class FakeServer:
    """routes[(METHOD, "/api/v1/path")] = Canned(...) or a function(request, handler)
    that answers (it may write the response itself and return None). Every request is
    in ``requests``. Unrouted requests get a 404 in the API's error format."""

    def __init__(self, protocol: str = "HTTP/1.1") -> None:
        self.routes: Dict[Tuple[str, str], Route] = {}
        self.requests: List[Recorded] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = protocol

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                parts = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Recorded(self.command, parts.path, urllib.parse.parse_qs(parts.query),
                                   {k.lower(): v for k, v in self.headers.items()}, body)
                owner.requests.append(request)
                route = owner.routes.get((self.command, parts.path))
                if route is None:
                    answer: Optional[Canned] = Canned(404, {"error": f"no such endpoint: {self.command} {parts.path}"})
                elif isinstance(route, Canned):
                    answer = route
                else:
                    answer = route(request, self)
                if answer is not None:
                    data = answer.encoded()
                    self.send_response(answer.status)
                    if answer.content_type:
                        self.send_header("Content-Type", answer.content_type)
                    for key, value in answer.headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       name="fake-control", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, method: str, path: str, answer: Route) -> None:
        self.routes[(method, "/api/v1" + path)] = answer

    def last(self) -> Recorded:
        return self.requests[-1]

    def __enter__(self) -> "FakeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def sse_route(frames: List[Union[str, float]], *, chunked: bool = True, hold: float = 0.0) -> Callable:
    """A /events answer: each str is written (and flushed) as it is, each float is a
    pause in seconds; then the stream stays open ``hold`` seconds and ends."""

    def answer(request: Recorded, handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-store")
        if chunked:
            handler.send_header("Transfer-Encoding", "chunked")
        else:
            handler.send_header("Connection", "close")
        handler.end_headers()
        try:
            for item in frames:
                if isinstance(item, float):
                    time.sleep(item)
                    continue
                data = item.encode()
                if chunked:
                    handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                else:
                    handler.wfile.write(data)
                handler.wfile.flush()
            if hold:
                time.sleep(hold)
            if chunked:
                handler.wfile.write(b"0\r\n\r\n")
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        handler.close_connection = True

    return answer


# --------------------------------------------------------------------------
# A fake castsim executable
# --------------------------------------------------------------------------

FAKE_CASTSIM = r'''
import json, os, signal, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

mode = os.environ.get("FAKE_CASTSIM_MODE", "ok")
record = os.environ.get("FAKE_CASTSIM_ARGV")
if record:
    with open(record, "a") as f:
        f.write(json.dumps(sys.argv[1:]) + "\n")

def option(name, default=None):
    args = sys.argv[1:]
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
    return default

host = option("--host", "127.0.0.1")
port = option("--port", "8009")
name = option("--name", "castsim")
resets = {"count": 0}
console = []  # lines read from standard input (castsim's console)

if mode == "fail":
    sys.stderr.write(f"Error: port {port} on {host} (the Cast port) is already in use: give another --port\n")
    sys.exit(1)
if mode == "fail-once":
    marker = os.environ["FAKE_CASTSIM_MARKER"]
    if not os.path.exists(marker):
        open(marker, "w").close()
        sys.stderr.write(f"Error: port {port} on {host} (the Cast port) is already in use\n")
        sys.exit(1)
if mode == "garbage":
    print("hello there", flush=True)
    time.sleep(60)
    sys.exit(0)
if mode == "silent":
    time.sleep(60)
    sys.exit(0)

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        if self.path == "/api/v1/state":
            self.answer(200, {"time": 0, "device": {"name": name}, "volume": {"level": 1.0, "muted": False},
                              "app": None, "media": None, "connections": [], "emp": None,
                              "clock": {"mode": "manual" if "--manual-clock" in sys.argv else "real", "speed": None, "time": 0},
                              "resets": resets["count"], "argv": sys.argv[1:], "pid": os.getpid(),
                              "console": list(console), "marker": os.environ.get("FAKE_CASTSIM_PREFIX_MARK")})
        else:
            self.answer(404, {"error": "no such endpoint"})
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        if self.path == "/api/v1/reset":
            resets["count"] += 1
            self.answer(200, {"name": "fake", "steps": 0, "stepsFired": 0, "rules": 0, "expectations": 0})
        else:
            self.answer(404, {"error": "no such endpoint"})

def read_console():
    for line in sys.stdin:
        console.append(line.rstrip("\n"))
threading.Thread(target=read_console, daemon=True).start()

hosts = host.split(",")  # a household: one address per device
control = "off"
if option("--control-port") != "off":
    server = ThreadingHTTPServer((hosts[0], 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    control = f"{hosts[0]}:{server.server_address[1]}"

http = option("--http-port", "off")
http = "off" if http == "off" else ",".join(f"{h}:{http}" for h in hosts)
line = f"castsim ready cast={','.join(f'{h}:{port}' for h in hosts)} http={http} https=off"
if mode != "no-control":
    line += f" control={control}"
if mode == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
else:
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
sys.stderr.write("fake castsim: starting\n")
sys.stdout.write(line + "\n")
sys.stdout.flush()
if mode == "die":
    time.sleep(float(os.environ.get("FAKE_CASTSIM_DIE_AFTER", "0.5")))
    sys.stderr.write("fake castsim: crashing on purpose\n")
    os._exit(3)
while True:
    time.sleep(0.1)
'''


def write_fake_castsim(folder: Path) -> Path:
    """An executable `castsim` in ``folder`` running FAKE_CASTSIM with this Python."""
    path = folder / "castsim"
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(FAKE_CASTSIM))
    path.chmod(0o755)
    return path


def recorded_argv(path: Path) -> List[List[str]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
