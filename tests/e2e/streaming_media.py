"""Test videos for the mirroring tests, made with Debian's ffmpeg: solid colours, a sine tone."""

from __future__ import annotations

import subprocess
from pathlib import Path


def two_color_video(path: Path, *, first: str, second: str, switch_at: float, seconds: float,
                    size: tuple[int, int] = (1280, 720), fps: int = 30, audio: bool = True) -> Path:
    """H.264 in MP4, `size` at `fps`: `first` until `switch_at` seconds, then `second`; with
    a 440 Hz tone in AAC (48 kHz) unless `audio` is False. cast_sender (its own FFmpeg 5.1)
    reads it and re-encodes it to VP8/Opus. 45 s at 720p30 take about 2 s to make and 0.5 MB
    (ultrafast, and flat colours compress to nothing)."""
    width, height = size
    video = f"s={width}x{height}:r={fps}"
    tone = ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}"] if audio else []
    subprocess.run([
        "ffmpeg", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", f"color=c={first}:{video}:d={switch_at}",
        "-f", "lavfi", "-i", f"color=c={second}:{video}:d={seconds - switch_at}",
        *tone,
        "-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0[v]", "-map", "[v]",
        *(["-map", "2:a", "-c:a", "aac"] if audio else []),
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path),
    ], check=True, timeout=120)
    return path


def moving_video(path: Path, *, seconds: float, size: tuple[int, int] = (1280, 720), fps: int = 30) -> Path:
    """FFmpeg's moving test pattern (testsrc2), H.264 in MP4, no audio track: frames of many
    packets once cast_sender encodes them at its bit rate (a flat colour makes one-packet frames)."""
    width, height = size
    subprocess.run([
        "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=s={width}x{height}:r={fps}:d={seconds}",
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path),
    ], check=True, timeout=120)
    return path


def hex_color(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
