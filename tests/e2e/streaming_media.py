"""Test videos for the mirroring tests, made with Debian's ffmpeg: solid colours, a sine tone."""

from __future__ import annotations

import subprocess
from pathlib import Path


def two_color_video(path: Path, *, first: str, second: str, switch_at: float, seconds: float) -> Path:
    """720p30 H.264 with AAC: `first` until `switch_at` seconds, then `second`. Made in about a
    second (ultrafast, and flat colours compress to nothing)."""
    subprocess.run([
        "ffmpeg", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", f"color=c={first}:s=1280x720:r=30:d={switch_at}",
        "-f", "lavfi", "-i", f"color=c={second}:s=1280x720:r=30:d={seconds - switch_at}",
        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
        "-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0[v]", "-map", "[v]", "-map", "2:a",
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", str(path),
    ], check=True, timeout=120)
    return path


def hex_color(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
