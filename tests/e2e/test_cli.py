"""The castsim command line: validate, schema, and the manual clock's stdin control."""

from __future__ import annotations

import json
import re
import resource
import socket
import subprocess
import time
from pathlib import Path

import pytest

from e2e_harness import REPO_ROOT, wait_until

SCENARIOS = REPO_ROOT / "scenarios"


def run(binary: Path, *args: str, timeout: float = 30, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def test_version_names_the_version_and_the_commit_it_was_built_from(castsim_bin: Path) -> None:
    """`castsim --version` and `castsim version`: the version CastsimVersion.swift holds and
    HEAD of this checkout, `-dirty` when tracked files have changes (castsim is built from
    this tree just before the tests run)."""
    source = (REPO_ROOT / "Sources" / "CastSimulator" / "CastsimVersion.swift").read_text()
    version = re.search(r'^ *public static let current = "(.*)"$', source, re.MULTILINE)
    assert version, "CastsimVersion.swift holds no `public static let current = \"...\"` line"
    head = git("rev-parse", "HEAD")
    dirty = git("--no-optional-locks", "status", "--porcelain", "--untracked-files=no") != ""
    for args in (["--version"], ["version"]):
        result = run(castsim_bin, *args)
        assert result.returncode == 0, result.stderr
        line = re.fullmatch(r"castsim (\S+) \(([0-9a-f]{7,40})(-dirty)?\)\n", result.stdout)
        assert line, f"castsim {' '.join(args)} printed {result.stdout!r}"
        assert line[1] == version[1]
        assert head.startswith(line[2]), f"built from {line[2]}, HEAD is {head}"
        assert bool(line[3]) == dirty, f"{result.stdout.strip()!r}, but the tree is {'dirty' if dirty else 'clean'}"


def test_validate_accepts_every_example(castsim_bin: Path) -> None:
    files = sorted(str(p) for p in SCENARIOS.glob("*.json") if p.name != "scenario.schema.json")
    result = run(castsim_bin, "validate", *files)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(": ok (") == len(files)


def test_validate_as_the_readme_gives_it_skips_the_schema_beside_the_examples(castsim_bin: Path) -> None:
    """`castsim validate scenarios/*.json` takes in scenarios/scenario.schema.json too."""
    files = sorted(str(p) for p in SCENARIOS.glob("*.json"))
    assert str(SCENARIOS / "scenario.schema.json") in files
    result = run(castsim_bin, "validate", *files)
    assert result.returncode == 0, result.stderr
    assert f"{SCENARIOS / 'scenario.schema.json'}: skipped: a JSON Schema" in result.stdout
    assert result.stdout.count(": ok (") == len(files) - 1


def test_validate_says_what_a_file_that_is_no_scenario_is(castsim_bin: Path, tmp_path: Path) -> None:
    yaml = tmp_path / "movie.yaml"
    yaml.write_text("name: movie\ntimeline: []\n")
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps({"name": "x"}).encode())
    twice = tmp_path / "twice.json"
    twice.write_text('{"name": "x",\n "timeline": [{"at": "1s", "standby": true}],\n "timeline": []}')
    for path, message in [
        (yaml, "(scenario files are JSON, an object in braces; YAML and other formats are not read)"),
        (bom, "(a UTF-8 byte order mark: save the file without one)"),
        (twice, 'not valid JSON at line 3, column 2: "timeline" is given twice in one object'),
        (tmp_path, "cannot read the file: it is a directory"),
        (Path("/dev/null"), "(the file is empty)"),
    ]:
        # Named as given, relative or not: here relative to the file's folder.
        result = run(castsim_bin, "validate", path.name if path.parent == tmp_path else str(path), cwd=tmp_path)
        assert result.returncode == 1, (path, result.stdout)
        assert message in result.stderr, (path, result.stderr)
        if path.parent == tmp_path:
            assert result.stderr.startswith(f"{path.name}: 1 problem"), result.stderr


def test_validate_reports_every_error_with_its_path(castsim_bin: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({
        "name": "bad",
        "timeline": [{"after": {"event": "LOAD", "delay": "5 sec"}, "buffering": "1s"}],
        "expectations": [{"message": {"type": "LOAD"}}],
    }))
    good = SCENARIOS / "plain-movie.json"
    result = run(castsim_bin, "validate", str(good), str(bad))
    assert result.returncode == 1
    assert f"{good}: ok" in result.stdout
    assert f"{bad}: 2 problems" in result.stderr
    assert 'timeline[0].after.delay: expected a duration like "5s", got "5 sec"' in result.stderr
    assert "expectations[0].name: missing; expected a name for the report" in result.stderr


def test_schema_prints_the_shipped_schema(castsim_bin: Path) -> None:
    result = run(castsim_bin, "schema")
    assert result.returncode == 0
    assert json.loads(result.stdout) == json.loads((SCENARIOS / "scenario.schema.json").read_text())


def start_manual_clock(castsim_bin: Path, tmp_path: Path, step_at: str) -> subprocess.Popen:
    """castsim on a manual clock with one timeline step, ready, its stdin open for commands."""
    scenario = tmp_path / "manual.json"
    scenario.write_text(json.dumps({
        "name": "manual",
        "clock": {"mode": "manual"},
        "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
        "timeline": [{"at": step_at, "standby": True}],
    }))
    proc = subprocess.Popen(
        [str(castsim_bin), "run", "--scenario", str(scenario), "--host", "127.0.0.1", "--port", "0", "--mdns", "off",
         "--http-port", "off", "--https-port", "off", "--control-port", "off", "--exit-when-done", "--timeout", "30s",
         "--report", str(tmp_path / "report.json")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().startswith("castsim ready cast=127.0.0.1:")
    return proc


def test_manual_clock_moves_by_stdin_commands(castsim_bin: Path, tmp_path: Path) -> None:
    proc = start_manual_clock(castsim_bin, tmp_path, "10m")
    try:
        assert proc.stdin is not None
        time.sleep(0.5)
        assert proc.poll() is None, "the step at 10m must wait for the clock"
        proc.stdin.write("advance 9m\n")
        proc.stdin.flush()
        time.sleep(0.5)
        assert proc.poll() is None, "9 minutes is not enough"
        proc.stdin.write("advance 1m\n")
        proc.stdin.flush()
        # The last step fired: the scenario is complete and castsim exits 0 by itself.
        assert proc.wait(timeout=15) == 0
        report = json.loads((tmp_path / "report.json").read_text())
        assert report["stepsFired"] == 1 and report["duration"] == 600
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_examples_follow_the_json_schema() -> None:
    """The schema editors use agrees with castsim's own validator on the examples."""
    import jsonschema

    schema = json.loads((SCENARIOS / "scenario.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(SCENARIOS.glob("*.json")):
        if path.name == "scenario.schema.json":
            continue
        errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(json.loads(path.read_text()))]
        assert not errors, f"{path.name}: {errors}"


def test_schema_refuses_what_validate_refuses(castsim_bin: Path, tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads((SCENARIOS / "scenario.schema.json").read_text())
    bad = {"name": "x", "timeline": [{"at": "5 sec", "standby": True}], "rules": [{"match": {}, "action": "reply"}]}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert run(castsim_bin, "validate", str(path)).returncode == 1


def run_scenario(binary: Path, tmp_path: Path, scenario: dict, *extra: str, timeout: float = 60) -> tuple[int, float, dict]:
    """castsim run --scenario ... --exit-when-done on ephemeral ports; (exit code, seconds, report)."""
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    report = tmp_path / "report.json"
    started = time.monotonic()
    result = subprocess.run(
        [str(binary), "run", "--scenario", str(path), "--host", "127.0.0.1", "--port", "0", "--mdns", "off", "--http-port", "off",
         "--https-port", "off", "--control-port", "off", "--exit-when-done", "--report", str(report), *extra],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    return result.returncode, time.monotonic() - started, json.loads(report.read_text())


def test_timeout_ends_a_run_whose_expectations_are_still_pending(castsim_bin: Path, tmp_path: Path) -> None:
    scenario = {"name": "waits", "expectations": [{"name": "a LOAD within the hour", "message": {"type": "LOAD"}, "within": "1h"}]}
    status, seconds, report = run_scenario(castsim_bin, tmp_path, scenario, "--timeout", "2s")
    assert status == 1
    assert 1.5 < seconds < 20
    assert report["passed"] is False
    assert report["expectations"][0]["reason"] == "not seen by the end of the run"


def test_speed_runs_the_timeline_faster(castsim_bin: Path, tmp_path: Path) -> None:
    # 100 s of scenario time at 100x: about one second of wall time.
    scenario = {"name": "fast", "device": {"heartbeatInterval": "0s"}, "timeline": [{"at": "100s", "standby": True}]}
    status, seconds, report = run_scenario(castsim_bin, tmp_path, scenario, "--speed", "100", "--timeout", "30s")
    assert status == 0
    assert seconds < 10, f"took {seconds:.1f}s"
    assert report["stepsFired"] == 1 and report["duration"] >= 100


def test_a_day_in_manual_time_takes_moments(castsim_bin: Path, tmp_path: Path) -> None:
    scenario = json.loads((SCENARIOS / "manual-clock-day.json").read_text())
    status, seconds, report = run_scenario(castsim_bin, tmp_path, scenario, "--timeout", "30s")
    assert status == 0
    assert seconds < 10
    assert report["duration"] == 86400 and report["stepsFired"] == 6


def test_run_help_documents_every_option(castsim_bin: Path) -> None:
    result = run(castsim_bin, "run", "--help")
    assert result.returncode == 0
    for option in ["--name", "--model", "--uuid", "--host", "--port", "--http-port", "--https-port", "--log-level",
                   "--heartbeat-interval", "--idle-timeout", "--default-duration", "--audio-only", "--isolate-request-ids",
                   "--scenario", "--exit-when-done", "--timeout", "--report", "--junit", "--speed", "--manual-clock",
                   "--journal-limit", "--journal-mib"]:
        assert option in result.stdout, f"{option} missing from castsim run --help"


def test_bad_arguments_are_refused_with_a_reason(castsim_bin: Path) -> None:
    result = run(castsim_bin, "run", "--uuid", "1234")
    assert result.returncode != 0
    assert "--uuid \"1234\": expected 32 hex digits, with or without dashes" in result.stderr
    result = run(castsim_bin, "run", "--scenario", str(SCENARIOS / "does-not-exist.json"))
    assert result.returncode != 0 and "cannot read the file" in result.stderr


def test_console_refuses_a_duration_out_of_range_and_carries_on(castsim_bin: Path, tmp_path: Path) -> None:
    """`advance 100000000000000000000000s` used to crash castsim (a Double overflowing an Int)."""
    proc = start_manual_clock(castsim_bin, tmp_path, "10s")
    try:
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.write("advance 100000000000000000000000s\nadvance -5s\nadvance \x1b[2Jsoon\nadvance\nadvance 1s 2s\nreport now\n")
        proc.stdin.flush()
        time.sleep(0.5)
        assert proc.poll() is None, "castsim must survive a duration out of range"
        proc.stdin.write("advance 10s\n")
        proc.stdin.flush()
        assert proc.wait(timeout=15) == 0
        stderr = proc.stderr.read()
        assert 'advance "100000000000000000000000s" is longer than 87600h (ten years), the longest castsim takes' in stderr
        assert 'advance "-5s" is not a duration' in stderr
        assert 'control: "advance": advance takes one duration, e.g. "advance 10s"; nothing advanced' in stderr
        assert 'control: "advance 1s 2s": advance takes one duration' in stderr
        assert 'control: "report now": report takes nothing after it' in stderr
        assert "\x1b" not in stderr, "console input is escaped before it reaches the log"
        report = json.loads((tmp_path / "report.json").read_text())
        assert report["duration"] == 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_flags_out_of_range_are_refused(castsim_bin: Path) -> None:
    for args, message in [
        (["--idle-timeout", "1e30"], "--idle-timeout 1e+30: longer than 87600h (ten years)"),
        (["--heartbeat-interval", "nan"], "--heartbeat-interval nan: expected a number of seconds >= 0"),
        # A negative number is the flag's value, not another flag ("Missing value" before).
        (["--heartbeat-interval", "-1"], "--heartbeat-interval -1: expected a number of seconds >= 0"),
        (["--speed", "-2"], "--speed -2: expected a number > 0"),
        (["--journal-limit", "-1"], "--journal-limit must be >= 0"),
        (["--timeout", "100000000000000000000000s", "--exit-when-done", "--scenario", str(SCENARIOS / "plain-movie.json")],
         '--timeout "100000000000000000000000s" is longer than 87600h'),
        (["--speed", "1e300"], "--speed 1e+300: at most 1000000 times real time"),
        (["--journal-limit=-1"], "--journal-limit must be >= 0"),
        (["--journal-mib=0"], "--journal-mib 0: expected 1-65536 (MiB)"),
    ]:
        result = run(castsim_bin, "run", *args)
        assert result.returncode != 0, args
        assert message in result.stderr, (args, result.stderr)


def test_flags_that_would_be_quietly_ignored_are_refused(castsim_bin: Path) -> None:
    movie = str(SCENARIOS / "plain-movie.json")
    for args, message in [
        (["--timeout", "2m"], "--timeout says when --exit-when-done gives up; it needs --exit-when-done"),
        (["--scenario", movie, "--audio-only"], "--audio-only is for a device without a scenario; a scenario sets it in device.capabilities"),
        (["--scenario", movie, "--heartbeat-interval", "1"], "--heartbeat-interval is for a device without a scenario; a scenario sets it in device.heartbeatInterval"),
        (["--scenario", movie, "--default-duration", "30"], "--default-duration is for a device without a scenario; a scenario sets it in device.defaultMediaDuration"),
        (["--scenario", str(SCENARIOS / "manual-clock-day.json"), "--speed", "10"], "--speed runs a clock that moves by itself; this scenario's clock is manual"),
        (["--host", "127.0.0.5-7"], "--host 127.0.0.5-7: a list or a range of addresses is for a household (--devices N)"),
        (["--devices", "2", "--host", "127.0.0.5,127.0.0.6,127.0.0.7"], "--host 3 addresses for 2 devices: give one each"),
    ]:
        result = run(castsim_bin, "run", "--mdns", "off", "--control-port", "off", *args)
        assert result.returncode != 0, args
        assert message in result.stderr, (args, result.stderr)


def test_a_port_in_use_is_named_with_its_flag(castsim_bin: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for flag in ["--port", "--http-port", "--https-port", "--control-port"]:
            ports = {"--port": "0", "--http-port": "0", "--https-port": "0", "--control-port": "off", flag: str(port)}
            # The control API off but where tested: its fixed default port (8119) may be another test's.
            result = run(castsim_bin, "run", "--host", "127.0.0.1", "--mdns", "off", *[x for pair in ports.items() for x in pair])
            assert result.returncode == 1
            assert f"port {port} on 127.0.0.1 ({flag}) is already in use" in result.stderr
            assert "errno" not in result.stderr and "bind(descriptor" not in result.stderr


def test_a_household_beyond_the_descriptor_limit_is_refused_before_it_starts(castsim_bin: Path) -> None:
    """Three listening sockets a device (Cast, HTTP, HTTPS): a household that cannot fit the hard
    limit on open files is refused up front, saying how many would fit with one socket a device."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard // 3 + 100 > 65000:
        pytest.fail(f"the hard limit on open files ({hard}) leaves no household size that loopback can address and that exceeds it")
    count = hard // 3 + 100
    last = 0x7F010001 + count - 1  # from 127.1.0.1 on
    result = run(castsim_bin, "run", "--devices", str(count), "--host",
                 f"127.1.0.1-{socket.inet_ntoa(last.to_bytes(4, 'big'))}", "--mdns", "off", "--control-port", "off")
    assert result.returncode != 0
    assert f"{count} devices need {count * 3} listening sockets; this process may open {hard} files" in result.stderr, result.stderr
    assert f"up to {hard - min(256, hard // 8)} devices" in result.stderr, result.stderr
    assert "Too many open files" not in result.stderr
