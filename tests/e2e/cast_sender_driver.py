"""Streams a file to a Cast device with Open Screen's sender (cast_sender 1.2.0), then prints
one JSON line: what the sender did and logged.

Run with .venv-cast-sender's python, as a process of its own: cast_sender allows one
runtime a process, and aborts the process on some bad ANSWERs.

    cast_sender_driver.py --host H --port P --cert root.crt --file video.mp4 --seconds 30

cast_sender logs to the process's stderr from C++; the log goes to a file (--log) by moving
file descriptor 2, and is read back for the summary.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, default=8009)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--file", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--codec", default="vp8")
    parser.add_argument("--log", required=True)
    args = parser.parse_args()

    log = os.open(args.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    saved = os.dup(2)
    os.dup2(log, 2)
    import cast_sender  # after the move: its first log lines go to the file too

    runtime = cast_sender.CastRuntime()
    sender = cast_sender.CastSender(runtime, args.host, args.port, args.cert)
    config = cast_sender.StreamConfig()
    config.file_path = args.file
    config.codec_name = args.codec
    started = sender.stream_video(config, True)
    begin = time.monotonic()
    elapsed = None
    streamed = False
    while time.monotonic() - begin < args.seconds:
        now = sender.get_streaming_elapsed_time_us()
        if now is not None:
            elapsed = now
            streamed = streamed or now > 0
        elif streamed:
            break  # the session ended on its own
        time.sleep(0.2)
    sender.teardown()
    os.dup2(saved, 2)

    with open(args.log, encoding="utf-8", errors="replace") as file:
        text = file.read()
    port = re.search(r"Streaming to [^:\s]+:(\d+)", text)
    summary = {
        "started": bool(started),
        "elapsedUs": elapsed,
        "udpPort": int(port.group(1)) if port else None,
        "kickstarts": text.count("Sending KICKSTART"),
        "retransmissions": text.count("RETRANSMITTING"),
        "videoDropped": len(re.findall(r"VIDEO\[\d+\] Dropping", text)),
        "audioDropped": len(re.findall(r"AUDIO\[\d+\] Dropping", text)),
        "pliAccepted": text.count("Sender accepted PLI"),
        "fatal": [line for line in text.splitlines()
                  if any(sign in line for sign in ("fatal error", "Failed to launch", "Failed to establish", "Cannot continue",
                                                   "Missing required senders"))][:5],
        "log": args.log,
    }
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
