"""The binary a castsim wheel carries (castsim/bin/castsim): found after every explicit
choice, run by the package's `castsim` command, and refused clearly when damaged."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import castsim
from castsim import launch
from castsim.launch import CastsimNotFound, find_castsim
from fakes import recorded_argv, write_fake_castsim

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def bundled(tmp_path, monkeypatch) -> Path:
    """A package that carries a (fake) binary; nothing else on PATH or in CASTSIM_BIN."""
    folder = tmp_path / "package" / "bin"
    folder.mkdir(parents=True)
    binary = write_fake_castsim(folder)
    monkeypatch.setattr(launch, "BUNDLED_BINARY", binary)
    monkeypatch.delenv("CASTSIM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("FAKE_CASTSIM_ARGV", str(tmp_path / "argv.jsonl"))
    return binary


def console_script(folder: Path) -> Path:
    """What pip writes for the package's `castsim` command."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "castsim"
    path.write_text(f"#!{sys.executable}\nimport sys\nfrom castsim.console import main\nsys.exit(main())\n")
    path.chmod(0o755)
    return path


def test_the_carried_binary_comes_last(bundled, tmp_path, monkeypatch):
    assert find_castsim() == bundled
    # castsim on PATH says otherwise...
    (tmp_path / "elsewhere").mkdir()
    on_path = write_fake_castsim(tmp_path / "elsewhere")
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert find_castsim() == on_path
    # ... but the package's own command on PATH stands for the carried binary.
    monkeypatch.setenv("PATH", str(console_script(tmp_path / "venv" / "bin").parent))
    assert find_castsim() == bundled
    monkeypatch.setenv("CASTSIM_BIN", str(on_path))
    assert find_castsim() == on_path


def test_a_source_install_carries_none(tmp_path, monkeypatch):
    monkeypatch.setattr(launch, "BUNDLED_BINARY", tmp_path / "package" / "bin" / "castsim")
    monkeypatch.delenv("CASTSIM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert launch.bundled_castsim() is None
    with pytest.raises(CastsimNotFound, match=r"carries none \(installed from source\).*swift build --product castsim"):
        find_castsim()


@pytest.mark.parametrize("damage, message", [
    ("missing", "is missing"),
    ("not executable", "is not executable"),
    ("corrupt", r"is damaged \(not an executable: it starts with b'PK"),
])
def test_a_damaged_carried_binary_says_to_reinstall(bundled, damage, message):
    if damage == "missing":
        bundled.unlink()
    elif damage == "not executable":
        bundled.chmod(0o644)
    else:
        bundled.write_bytes(b"PK\x03\x04 half a zip, not castsim")
    with pytest.raises(CastsimNotFound, match=message + r".*pip install --force-reinstall castsim"):
        find_castsim()


def test_the_plugin_runs_the_carried_binary(pytester, bundled):
    pytester.makepyfile("""
        def test_it(castsim):
            assert castsim.state().name
    """)
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)


def test_the_plugin_fails_on_a_damaged_carried_binary(pytester, bundled):
    bundled.write_bytes(b"\x00" * 64)
    pytester.makepyfile("""
        def test_it(castsim):
            pass
    """)
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(errors=1)  # an error, never a skip
    result.stdout.fnmatch_lines(["*castsim package's own binary*is damaged*pip install --force-reinstall castsim*"])


def test_the_castsim_command_runs_the_carried_binary(bundled, tmp_path):
    """The command becomes the binary: same arguments, its output, its exit status."""
    environment = {**os.environ, "PYTHONPATH": str(REPO / "python"), "FAKE_CASTSIM_MODE": "fail"}
    program = ("import sys; from castsim import launch, console; from pathlib import Path; "
               f"launch.BUNDLED_BINARY = Path({str(bundled)!r}); sys.exit(console.main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", program, "run", "--port", "1234"], env=environment,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1  # the fake's own status in this mode
    assert "port 1234" in done.stderr
    assert recorded_argv(tmp_path / "argv.jsonl") == [["run", "--port", "1234"]]


def test_the_castsim_command_without_a_binary(tmp_path):
    environment = {**os.environ, "PYTHONPATH": str(REPO / "python"), "PATH": str(tmp_path)}
    program = ("import sys; from castsim import launch, console; from pathlib import Path; "
               f"launch.BUNDLED_BINARY = Path({str(tmp_path / 'none' / 'castsim')!r}); sys.exit(console.main([]))")
    done = subprocess.run([sys.executable, "-c", program], env=environment, capture_output=True, text=True, timeout=30)
    assert done.returncode == 127
    assert "carries no binary (installed from source)" in done.stderr and "swift build --product castsim" in done.stderr


def test_the_package_and_the_binary_have_one_version():
    swift = (REPO / "Sources" / "CastSimulator" / "CastsimVersion.swift").read_text()
    version = re.search(r'^ *public static let current = "(.*)"$', swift, re.MULTILINE)[1]
    assert castsim.__version__ == version
