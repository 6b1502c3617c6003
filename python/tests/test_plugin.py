"""The plugin's fixtures with the real castsim binary, in an inner pytest session, the way
a sender project uses them. Without a binary these tests fail."""

from __future__ import annotations


def test_fixtures_in_a_sender_project(pytester, castsim_bin):
    pytester.path.joinpath("scenarios").mkdir()
    pytester.path.joinpath("scenarios", "standby.json").write_text(
        '{"name": "standby at 1m", "clock": {"mode": "manual"}, "timeline": [{"at": "1m", "standby": true}]}')
    pytester.makepyfile(test_sender_project="""
        import pytest

        @pytest.mark.castsim(scenario="scenarios/standby.json", args=["--name", "Den TV"])
        def test_scenario_device(castsim):
            assert castsim.state().name == "Den TV"
            assert castsim.scenario().name == "standby at 1m"
            castsim.advance("1m")
            assert castsim.state().standby is True

        def test_shared_one(castsim_shared):
            castsim_shared.set_volume(0.1)
            assert castsim_shared.state().volume.level == pytest.approx(0.1)

        def test_shared_two(castsim_shared):
            # reset() ran before this test: the volume is back.
            assert castsim_shared.state().volume.level != pytest.approx(0.1)
    """)
    result = pytester.runpytest("--castsim-bin", str(castsim_bin), "-v")
    result.assert_outcomes(passed=3)
