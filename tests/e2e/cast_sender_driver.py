"""Streams a file to a Cast device with Open Screen's sender (cast_sender 1.2.0), then prints
one JSON line: what the sender did and logged.

Run with .venv-cast-sender's python, as a process of its own: cast_sender allows one
runtime a process, and aborts the process on some bad ANSWERs.

    cast_sender_driver.py --host H --port P --cert root.crt --file video.mp4 --seconds 30 \
        [--codec vp8] [--no-audio] [--log sender.log] [--end close|teardown]

cast_sender logs to the process's stderr from C++; the log goes to a file (--log, else a
temporary file that is kept) by moving file descriptor 2, and is read back for the summary.

How it ends (--end): `close` (default) shuts the sender's Cast socket down first, the way
a receiver's close would: the sender then stops its session itself and logs its own figures
(`Last reported statistics={...}`: frames captured, dropped by the encoder, packets sent),
which `teardown()` alone never logs; then `teardown()`. For the receiver both are the
sender's TLS connection closing (cast_sender's STOP is lost in either). `teardown`: only
`teardown()`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
import tempfile
import time
from typing import Any

# Lines after which cast_sender gives the session up (or never starts one).
FATAL_SIGNS = ("fatal error", "Failed to launch", "Failed to establish", "Cannot continue",
               "Missing required senders", "Missing both audio and video", "Failed to negotiate",
               "socket factory error")
# Reported too, though the sender carries on.
COMPLAINTS = FATAL_SIGNS + ("Cast Receiver thinks our request is invalid", "Failed to parse message")


def close_cast_socket(host: str, port: int) -> bool:
    """Shuts down this process's TCP connection to host:port (the sender's Cast channel)."""
    for name in os.listdir("/proc/self/fd"):
        try:
            if not os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                continue
            sock = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue
        with sock:
            try:
                if sock.type == socket.SOCK_STREAM and sock.getpeername()[:2] == (host, port):
                    sock.shutdown(socket.SHUT_RDWR)
                    return True
            except OSError:
                pass
    return False


STATISTICS_SIGN = "Last reported statistics="


def logged(log: str, sign: str) -> bool:
    with open(log, encoding="utf-8", errors="replace") as file:
        return any(sign in line for line in file)


def gave_up(log: str, waited: float, start_timeout: float) -> bool:
    """Before any session: the sender logged why it cannot go on, or start_timeout passed."""
    if waited >= start_timeout:
        return True
    with open(log, encoding="utf-8", errors="replace") as file:
        return any(sign in line for line in file for sign in FATAL_SIGNS)


def statistics(text: str) -> dict[str, Any] | None:
    """The sender's `Last reported statistics={...}` (its last, if several), or None."""
    found = None
    for line in text.splitlines():
        _, sep, rest = line.partition("Last reported statistics=")
        if sep:
            try:
                found = json.loads(rest)
            except ValueError:
                pass
    return found


def summarize(text: str, log: str) -> dict[str, Any]:
    port = re.search(r"Streaming to [^\s]+:(\d+)\.\.\.", text)
    stats = statistics(text)
    video = (stats or {}).get("video_statistics") or {}
    audio = (stats or {}).get("audio_statistics") or {}
    return {
        "launched": "Starting-up message routing" in text,
        "answered": port is not None,  # "Streaming to <ip>:<udpPort>": the ANSWER was taken
        "udpPort": int(port.group(1)) if port else None,
        "kickstarts": text.count("Sending KICKSTART"),
        "retransmissions": text.count("RETRANSMITTING"),
        "videoDropped": len(re.findall(r"VIDEO\[\d+\] Dropping", text)),
        "audioDropped": len(re.findall(r"AUDIO\[\d+\] Dropping", text)),
        "inFlightChecksFailed": text.count("MAX_DURATION_IN_FLIGHT check failed"),
        "pliReceived": text.count("Sender received PLI"),
        "pliAccepted": text.count("Sender accepted PLI"),
        "audioFailed": "The audio has failed" in text,
        # The sender's own figures, when it logged them (see --end).
        "statistics": stats,
        "videoFramesCaptured": video.get("NumFramesCaptured"),
        "videoFramesDroppedByEncoder": video.get("NumFramesDroppedByEncoder"),
        "audioFramesCaptured": audio.get("NumFramesCaptured"),
        "fatal": [line for line in text.splitlines() if any(sign in line for sign in COMPLAINTS)][:5],
        "log": log,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, default=8009)
    parser.add_argument("--cert", required=True, help="the developer root (PEM) the device's chain ends at")
    parser.add_argument("--file", required=True, help="longer than --seconds: cast_sender does not loop")
    parser.add_argument("--seconds", type=float, required=True, help="how long to stream (wall time from the start)")
    parser.add_argument("--codec", default="vp8", choices=("vp8", "vp9", "av1", "h264", "hevc"))
    parser.add_argument("--no-audio", action="store_true", help="offer video only")
    parser.add_argument("--max-bitrate", type=int, default=None)
    parser.add_argument("--log", default=None, help="where cast_sender's log goes (default: a kept temporary file)")
    parser.add_argument("--end", choices=("close", "teardown"), default="close")
    parser.add_argument("--start-timeout", type=float, default=20.0,
                        help="give up when no session has started after this many seconds")
    args = parser.parse_args()

    if args.log is None:
        handle, args.log = tempfile.mkstemp(prefix="cast_sender-", suffix=".log")
        os.close(handle)
    log = os.open(args.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    saved = os.dup(2)
    os.dup2(log, 2)
    os.close(log)
    import cast_sender  # after the move: its first log lines go to the file too

    error = None
    started = False
    elapsed = None
    streamed = False
    ended_by_sender = False
    closed = False
    sender = None
    try:
        runtime = cast_sender.CastRuntime()
        sender = cast_sender.CastSender(runtime, args.host, args.port, args.cert)
        config = cast_sender.StreamConfig()
        config.file_path = os.path.abspath(args.file)
        config.codec_name = args.codec
        config.should_include_audio = not args.no_audio
        if args.max_bitrate:
            config.max_bitrate = args.max_bitrate
        started = bool(sender.stream_video(config, True))
        begin = time.monotonic()
        while time.monotonic() - begin < args.seconds:
            now = sender.get_streaming_elapsed_time_us()
            if now is not None:
                elapsed = now
                streamed = True
            elif streamed:
                ended_by_sender = True  # the session ended on its own (or the receiver's doing)
                break
            elif gave_up(args.log, time.monotonic() - begin, args.start_timeout):
                break  # no session: the launch or the negotiation failed
            time.sleep(0.2)
        if args.end == "close" and not ended_by_sender:
            closed = close_cast_socket(args.host, args.port)
            # The agent stops its session on its own thread when its socket fails; teardown
            # only once it has (its statistics logged, then a moment), not beside it.
            deadline = time.monotonic() + 5
            while closed and time.monotonic() < deadline and (
                    sender.get_streaming_elapsed_time_us() is not None or not logged(args.log, STATISTICS_SIGN)):
                time.sleep(0.05)
            time.sleep(1.0)
    except Exception as exc:  # noqa: BLE001 - reported in the JSON line
        error = f"{type(exc).__name__}: {exc}"

    def summary() -> dict:
        sys.stderr.flush()
        with open(args.log, encoding="utf-8", errors="replace") as file:
            text = file.read()
        return {"started": started, "streamed": streamed, "elapsedUs": elapsed, "endedBySender": ended_by_sender,
                "socketClosed": closed, "error": error, **summarize(text, args.log)}

    # The figures first: cast_sender 1.2.0 now and then dies (SIGSEGV) in its own teardown,
    # after its session is over; what it streamed is known by then.
    print(json.dumps(summary()), flush=True)
    try:
        if sender is not None:
            sender.teardown()
    except Exception as exc:  # noqa: BLE001
        print(json.dumps({"teardownError": f"{type(exc).__name__}: {exc}"}), flush=True)
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
    # Past the native objects' destructors at interpreter exit, which race its threads.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
