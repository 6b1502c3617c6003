"""The wheel scripts/make-wheel.py writes (scripts/release.sh, with the real binary), made
here around a fake binary and installed into a fresh virtualenv with no package index."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import castsim
from fakes import write_fake_castsim

REPO = Path(__file__).resolve().parents[2]
PLATFORM = "manylinux_2_35_x86_64"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A virtualenv with only the wheel installed (pip --no-index); returns its bin/."""
    work = tmp_path_factory.mktemp("wheel")
    (work / "fake").mkdir()
    binary = write_fake_castsim(work / "fake")
    made = subprocess.run([sys.executable, str(REPO / "scripts" / "make-wheel.py"), "--binary", str(binary),
                           "--version", castsim.__version__, "--platform", PLATFORM, "--out", str(work / "dist")],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    wheel = Path(made.stdout.strip())
    assert wheel.name == f"castsim-{castsim.__version__}-py3-none-{PLATFORM}.whl"
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True, timeout=120)
    pip = subprocess.run([str(work / "venv" / "bin" / "python"), "-m", "pip", "install", "--no-index",
                          "--disable-pip-version-check", "-q", str(wheel)], capture_output=True, text=True, timeout=120)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    return work / "venv" / "bin"


def test_the_wheel_holds_the_package_the_binary_and_their_metadata(installed):
    wheel = next((installed.parent.parent / "dist").glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        mode = archive.getinfo("castsim/bin/castsim").external_attr >> 16
        info = f"castsim-{castsim.__version__}.dist-info"
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        tag = archive.read(f"{info}/WHEEL").decode()
    assert {"castsim/__init__.py", "castsim/console.py", "castsim/pytest_plugin.py", "castsim/py.typed"} <= set(names)
    assert mode & 0o777 == 0o755
    assert "[console_scripts]\ncastsim = castsim.console:main" in entry_points
    assert "[pytest11]\ncastsim = castsim.pytest_plugin" in entry_points
    assert f"Tag: py3-none-{PLATFORM}" in tag and "Root-Is-Purelib: false" in tag


def test_the_installed_command_runs_the_carried_binary(installed, tmp_path):
    record = tmp_path / "argv.jsonl"
    environment = {"PATH": f"{installed}:/usr/bin:/bin", "FAKE_CASTSIM_MODE": "fail", "FAKE_CASTSIM_ARGV": str(record)}
    done = subprocess.run(["castsim", "run", "--port", "1234"], env=environment, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "port 1234" in done.stderr  # the fake binary's own answer
    assert [json.loads(line) for line in record.read_text().splitlines()] == [["run", "--port", "1234"]]


def test_the_installed_plugin_finds_the_carried_binary(installed):
    program = ("import importlib.metadata as m, castsim; "
               "print(castsim.find_castsim()); "
               "print([e.value for e in m.entry_points(group='pytest11') if e.name == 'castsim'])")
    # Run from the venv's folder: `python -c` puts the working folder first on sys.path,
    # and from python/ that would import the source package, not the installed one.
    done = subprocess.run([str(installed / "python"), "-c", program], env={"PATH": f"{installed}:/usr/bin:/bin"},
                          cwd=installed, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    found, plugins = done.stdout.splitlines()
    assert found.endswith("site-packages/castsim/bin/castsim")
    assert plugins == "['castsim.pytest_plugin']"


def test_a_wheel_of_another_version_is_refused(tmp_path):
    (tmp_path / "fake").mkdir()
    binary = write_fake_castsim(tmp_path / "fake")
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "make-wheel.py"), "--binary", str(binary),
                           "--version", "9.9.9", "--platform", PLATFORM, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"the Python package says {castsim.__version__}" in done.stderr and "the binary 9.9.9" in done.stderr
    assert not list(tmp_path.glob("*.whl"))
