"""The pytest plugin, run in inner pytest sessions (pytester) with a fake `castsim`."""

from __future__ import annotations

import pytest

def test_marker_is_registered(pytester):
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.castsim(scenario=None, manual_clock=False, args=()*"])


def test_option_is_registered(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*--castsim-bin=PATH*"])


def test_fixture_fails_without_a_binary(pytester, monkeypatch):
    monkeypatch.delenv("CASTSIM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(pytester.path))
    pytester.makepyfile("""
        def test_needs_castsim(castsim):
            pass
    """)
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)  # an error, never a skip
    result.stdout.fnmatch_lines(["*castsim binary not found*CASTSIM_BIN is not set*swift build --product castsim*"])


def test_fixture_with_a_bad_cli_path(pytester, tmp_path):
    pytester.makepyfile("""
        def test_needs_castsim(castsim):
            pass
    """)
    result = pytester.runpytest("--castsim-bin", str(tmp_path / "missing"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*missing (the given path) does not exist*"])


def test_castsim_fixture_with_marker_options(pytester, fake_castsim):
    pytester.path.joinpath("scenarios").mkdir()
    pytester.path.joinpath("scenarios", "movie.json").write_text('{"name": "movie"}')
    pytester.makepyfile("""
        import pytest

        pytestmark = pytest.mark.castsim(args=["--default-duration", "600"], name="Module TV")

        @pytest.mark.castsim(manual_clock=True, scenario="scenarios/movie.json", name="Kitchen TV")
        def test_with_marker(castsim):
            assert castsim.device.host.startswith("127.")
            assert castsim.device.cast_port == 8009
            state = castsim.state()
            assert state.name == "Kitchen TV"          # the closest marker wins
            assert state.clock.mode == "manual"
            argv = state.raw["argv"]
            assert "--default-duration" in argv       # the module marker still applies
            assert argv[argv.index("--scenario") + 1].endswith("scenarios/movie.json")

        def test_without_marker_options(castsim):
            assert castsim.state().name == "Module TV"
            assert "--manual-clock" not in castsim.state().raw["argv"]
    """)
    result = pytester.runpytest("--castsim-bin", str(fake_castsim), "-v")
    result.assert_outcomes(passed=2)


def test_each_test_gets_its_own_device(pytester, fake_castsim):
    pytester.makepyfile("""
        pids = []

        def test_one(castsim):
            pids.append(castsim.state().raw["pid"])

        def test_two(castsim):
            pids.append(castsim.state().raw["pid"])
            assert pids[0] != pids[1]
    """)
    pytester.runpytest("--castsim-bin", str(fake_castsim)).assert_outcomes(passed=2)


def test_binary_from_the_environment_and_the_ini_file(pytester, fake_castsim, monkeypatch):
    pytester.makepyfile("""
        def test_it(castsim):
            assert castsim.state().name == "castsim"
    """)
    monkeypatch.setenv("CASTSIM_BIN", str(fake_castsim))
    pytester.runpytest().assert_outcomes(passed=1)
    monkeypatch.delenv("CASTSIM_BIN")
    bin_dir = pytester.path / "bin"
    bin_dir.mkdir()
    (bin_dir / "castsim").write_bytes(fake_castsim.read_bytes())
    (bin_dir / "castsim").chmod(0o755)
    pytester.makeini("[pytest]\ncastsim_bin = bin/castsim\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_unknown_marker_option(pytester, fake_castsim):
    pytester.makepyfile("""
        import pytest

        @pytest.mark.castsim(manual_clok=True)
        def test_it(castsim):
            pass
    """)
    result = pytester.runpytest("--castsim-bin", str(fake_castsim))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*unknown option(s)*manual_clok*known:*manual_clock*"])


def test_missing_scenario_file(pytester, fake_castsim):
    pytester.makepyfile("""
        import pytest

        @pytest.mark.castsim(scenario="nope.json")
        def test_it(castsim):
            pass
    """)
    result = pytester.runpytest("--castsim-bin", str(fake_castsim))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*scenario file not found; looked at*nope.json*"])


def test_shared_device_is_reset_before_each_test(pytester, fake_castsim):
    pytester.makeconftest("""
        import pytest

        @pytest.fixture(scope="session")
        def castsim_session_options():
            return {"manual_clock": True, "name": "Shared TV"}
    """)
    pytester.makepyfile("""
        pids = set()

        def test_one(castsim_shared):
            state = castsim_shared.state()
            pids.add(state.raw["pid"])
            assert state.raw["resets"] == 1 and state.name == "Shared TV"

        def test_two(castsim_shared):
            state = castsim_shared.state()
            pids.add(state.raw["pid"])
            assert state.raw["resets"] == 2
            assert len(pids) == 1

        def test_session_itself(castsim_session):
            assert castsim_session.state().raw["resets"] == 2   # no reset of its own
    """)
    result = pytester.runpytest("--castsim-bin", str(fake_castsim), "-p", "no:randomly")
    result.assert_outcomes(passed=3)


def test_failing_test_shows_castsim_stderr(pytester, fake_castsim):
    pytester.makepyfile("""
        def test_fails(castsim):
            assert castsim.state().name == "something else"
    """)
    result = pytester.runpytest("--castsim-bin", str(fake_castsim))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*castsim stderr (*castsim-127.*.stderr.log)*", "fake castsim: starting"])


def test_a_device_that_dies_fails_the_teardown(pytester, fake_castsim, monkeypatch):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "die")
    monkeypatch.setenv("FAKE_CASTSIM_DIE_AFTER", "0.2")
    pytester.makepyfile("""
        import time

        def test_device_dies(castsim):
            time.sleep(1.0)
    """)
    result = pytester.runpytest("--castsim-bin", str(fake_castsim))
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*exited by itself during the test with status 3*", "*crashing on purpose*"])


def test_stopping_the_device_in_the_test_is_fine(pytester, fake_castsim):
    pytester.makepyfile("""
        def test_stops_it(castsim):
            castsim.device.stop()
            assert not castsim.device.is_running()
    """)
    pytester.runpytest("--castsim-bin", str(fake_castsim)).assert_outcomes(passed=1)


@pytest.mark.parametrize("mode", ["no-control"])
def test_a_device_without_control_api_fails_clearly(pytester, fake_castsim, monkeypatch, mode):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", mode)
    pytester.makepyfile("""
        def test_it(castsim):
            pass
    """)
    result = pytester.runpytest("--castsim-bin", str(fake_castsim))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*castsim did not start: no control API*predates the control API*"])
