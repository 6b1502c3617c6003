#!/usr/bin/env python3
"""Writes the castsim wheel: the Python package in python/castsim with a castsim binary in it.

    scripts/make-wheel.py --binary PATH --version VERSION --platform manylinux_2_XX_x86_64 --out DIR

scripts/release.sh runs it. The wheel holds castsim/*.py, castsim/py.typed and
castsim/bin/castsim (mode 0755), the binary's third-party licenses (--notices) in its
dist-info, and its metadata from python/pyproject.toml: the
pytest11 entry point and the `castsim` console script (castsim/console.py, which runs
the binary). It is tagged py3-none-PLATFORM: pure Python around one native binary.

Standard library only (tomllib: Python 3.11), so no `wheel` or `build` package is needed,
and the file is the same bytes for the same inputs (fixed timestamps, sorted entries).
It refuses a VERSION that is not the Python package's own (castsim/_version.py).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import re
import sys
import tomllib
import zipfile
from pathlib import Path

PYTHON = Path(__file__).resolve().parents[1] / "python"
# Zip entries carry this time (the earliest a zip can say): the same inputs, the same bytes.
STAMP = (1980, 1, 1, 0, 0, 0)


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def metadata(project: dict, version: str, readme: str) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project['description']}", f"Requires-Python: {project['requires-python']}",
             f"License: {project['license']['text']}"]
    lines += [f"Classifier: {classifier}" for classifier in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {requirement}" for requirement in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {requirement}; extra == "{extra}"' for requirement in requirements]
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + readme


def entry_points(project: dict) -> str:
    groups = {"console_scripts": project.get("scripts", {}), **project.get("entry-points", {})}
    text = ""
    for group, entries in groups.items():
        text += f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in entries.items()) + "\n"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--notices", type=Path, help="the licenses of what the binary links in")
    parser.add_argument("--version", required=True)
    parser.add_argument("--platform", required=True, help="e.g. manylinux_2_34_x86_64")
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args()

    project = tomllib.loads((PYTHON / "pyproject.toml").read_text())["project"]
    own = re.search(r'^__version__ = "(.*)"$', (PYTHON / "castsim" / "_version.py").read_text(), re.MULTILINE)[1]
    if own != options.version:
        print(f"make-wheel: the Python package says {own} (python/castsim/_version.py), the binary {options.version}: "
              "make them agree first", file=sys.stderr)
        return 1
    if not re.fullmatch(r"(manylinux_\d+_\d+|linux|macosx_\d+_\d+)_(x86_64|aarch64|arm64)", options.platform):
        print(f"make-wheel: {options.platform!r} is no platform tag (expected e.g. manylinux_2_34_x86_64)", file=sys.stderr)
        return 1

    name, version = project["name"], options.version
    info = f"{name}-{version}.dist-info"
    files = [(f"castsim/{path.name}", path.read_bytes(), 0o644)
             for path in sorted((PYTHON / "castsim").iterdir()) if path.suffix == ".py" or path.name == "py.typed"]
    files.append(("castsim/bin/castsim", options.binary.read_bytes(), 0o755))
    files += [
        (f"{info}/METADATA", metadata(project, version, (PYTHON / "README.md").read_text()).encode(), 0o644),
        (f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: castsim scripts/make-wheel.py\nRoot-Is-Purelib: false\n"
                           f"Tag: py3-none-{options.platform}\n").encode(), 0o644),
        (f"{info}/entry_points.txt", entry_points(project).encode(), 0o644),
        (f"{info}/top_level.txt", b"castsim\n", 0o644),
    ]
    if options.notices:
        files.append((f"{info}/licenses/THIRD-PARTY-NOTICES.txt", options.notices.read_bytes(), 0o644))
    record = "".join(record_line(path, data) + "\n" for path, data, _ in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))

    options.out.mkdir(parents=True, exist_ok=True)
    wheel = options.out / f"{name}-{version}-py3-none-{options.platform}.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path, data, mode in files:
            entry = zipfile.ZipInfo(path, STAMP)
            entry.external_attr = (0o100000 | mode) << 16  # a regular file with its mode
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
