""""Is my graph reused, and does it pay off?" (graphs.doctor.sites): the break-even arithmetic against an eager time,
the three verdicts with the figures that decide them, the site table built from the watch's events (PyTorch's
captures with their pool, cugraphlab's own with instantiations, updates and graph memory) and its text. No GPU."""
from __future__ import annotations

import math

import pytest

from cugraphlab.graphs.doctor.sites import payoff, site_stats, verdict
from cugraphlab.graphs.doctor.stacks import StackEvent
from cugraphlab.report.doctor import render_sites


def site(captures=1, capture_s=30e-6, instantiate_s=20e-6, update_s=0.0, replays=10, replay_s=40e-6):
    return {"captures": captures, "capture_s": capture_s, "instantiate_s": instantiate_s, "update_s": update_s,
            "replays": replays, "replay_s": replay_s}


@pytest.mark.parametrize("eager, replays, n, words", [
    (14.0, 10, 5, "has paid off: break-even after 5 replays per capture"),  # 50 / (14 - 4) = 5: paid at 10
    (14.0, 4, 5, "pays off after 5 replays (4 so far"),
    (9.0, 10, 10, "has paid off: break-even after 10 replays"),  # 50 / 5 = 10: exactly paid
    (8.0, 10, 13, "pays off after 13 replays (10 so far"),  # 50 / 4 = 12.5 -> 13
    (4.0, 10, None, "never pays off here: a replay costs 4.0 us of host time, the eager work 4.0 us"),
    (3.0, 10, None, "never pays off here"),
])
def test_break_even_and_the_verdict_of_one_capture(eager, replays, n, words):
    s = site(replays=replays, replay_s=4e-6 * replays)
    out = payoff(s, eager)
    assert out["setup_us"] == pytest.approx(50.0) and out["replay_us"] == pytest.approx(4.0)
    assert out["break_even"] == n and words in out["verdict"]
    if n is not None:
        saved = eager - 4.0
        assert n == math.ceil(50.0 / saved) and (n - 1) * saved < 50.0 <= n * saved


def test_a_site_captured_every_few_replays_never_pays_off_when_each_capture_falls_short():
    s = site(captures=8, capture_s=8 * 30e-6, instantiate_s=8 * 20e-6, replays=8, replay_s=8 * 4e-6)
    out = payoff(s, 14.0)  # 5 replays per capture needed, 1 made per capture
    assert out["break_even"] == 5
    assert out["verdict"].startswith("never pays off here: re-captured every 1.0 replays, and each capture needs 5")
    s = site(captures=2, capture_s=2 * 30e-6, instantiate_s=2 * 20e-6, replays=40, replay_s=40 * 4e-6)
    assert payoff(s, 14.0)["verdict"].startswith("has paid off")  # 20 per capture, 5 needed


def test_updates_count_in_the_set_up_and_no_eager_time_or_no_replay_says_so():
    s = site(update_s=30e-6)  # set-up 80 us per capture
    assert payoff(s, 14.0)["setup_us"] == pytest.approx(80.0) and payoff(s, 14.0)["break_even"] == 8
    assert "give it (cugraphlab doctor --replay --eager-us US)" in payoff(s, None)["verdict"]
    assert payoff(s, None)["break_even"] is None
    idle = site(replays=0, replay_s=0.0)
    assert payoff(idle, 14.0)["verdict"] == "never replayed: 50.0 us of set-up per capture spent for nothing"
    assert verdict(50.0, 4.0, 14.0, 10, 1).startswith("has paid off")


def torch_events():
    ev = [StackEvent("begin", "torch", "t.py", 3, "main", capture=1, call="9"),
          StackEvent("end", "torch", "t.py", 3, "main", capture=1, ok=True, seconds=400e-6, mem=2 << 20),
          StackEvent("replay", "torch", "t.py", 9, "main", call="9", count=100, seconds=100 * 6e-6)]
    return ev


def cgl_events():
    w = ("c.py", 12, "main")
    return [StackEvent("captured", "cugraphlab", *w, call="0x10", seconds=20e-6),
            StackEvent("instantiated", "cugraphlab", *w, call="0x20", seconds=30e-6),
            StackEvent("update", "cugraphlab", *w, call="0x20", ok=True, code="CU_GRAPH_EXEC_UPDATE_SUCCESS",
                       seconds=5e-6),
            StackEvent("update", "cugraphlab", *w, call="0x20", ok=False, seconds=7e-6,
                       code="CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED", text="the new graph has other nodes or edges",
                       source="c.py:20"),
            StackEvent("instantiated", "cugraphlab", *w, call="0x30", seconds=30e-6),
            StackEvent("replay", "cugraphlab", *w, call="0x20", count=2, seconds=2 * 3e-6, mem=4096, mem_reserved=1 << 21),
            StackEvent("replay", "cugraphlab", *w, call="0x30", count=3, seconds=3 * 3e-6, mem=8192,
                       mem_reserved=1 << 21)]


def test_the_table_of_a_torch_site_and_a_cugraphlab_site():
    t, c = site_stats(torch_events() + cgl_events(), eager_us={"t.py:3, in main": 10.0, "c.py:12, in main": 4.0})
    assert (t["captures"], t["instantiations"], t["replays"], t["pool_bytes"]) == (1, 1, 100, 2 << 20)
    assert t["setup_us"] == pytest.approx(400.0) and t["replay_us"] == pytest.approx(6.0)
    assert t["break_even"] == 100 and t["verdict"].startswith("has paid off: break-even after 100 replays")
    assert (c["captures"], c["instantiations"], c["updates"], c["refused"], c["replays"]) == (1, 2, 2, 1, 5)
    assert (c["graph_mem_used"], c["graph_mem_reserved"]) == (8192, 1 << 21)
    assert c["setup_us"] == pytest.approx(20 + 60 + 12) and c["replay_us"] == pytest.approx(3.0)
    assert c["break_even"] == 92 and c["verdict"].startswith("pays off after 92 replays (5 so far")
    assert c["refusals"] == ["CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED: the new graph has other nodes or edges "
                             "(at c.py:20)"]
    text = render_sites([t, c])
    assert "t.py:3, in main: has paid off" in text and "c.py:12, in main: pays off after 92 replays" in text
    assert "updates refused at c.py:12, in main: 1 of 2, 6.0 us per update against 50.0 us to capture and " \
           "instantiate again" in text
    assert "TOPOLOGY_CHANGED" in text and "graph MiB" in text and "perf_counter_ns" in text


def test_the_cli_prints_the_verdict_with_the_eager_time(tmp_path, capsys, monkeypatch):
    from cugraphlab.cli import doctor as cli_doctor
    from cugraphlab.graphs.doctor import watch

    class Last:
        events = torch_events()

    def run(*a, **k):
        assert k["replay"] is True
        watch.LAST = Last()
        return 0, []

    monkeypatch.setattr("cugraphlab.graphs.doctor.run_explained", run)
    script = tmp_path / "s.py"
    script.write_text("pass\n")
    from cugraphlab.cli import main

    assert main(["doctor", "--replay", "--eager-us", "5.5", str(script)]) == 0
    out = capsys.readouterr().out
    assert "t.py:3, in main: never pays off here: a replay costs 6.0 us of host time, the eager work 5.5 us" in out
    assert cli_doctor.EXIT_FAILED == 1


def _payoff_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "doctor_payoff.py"
    spec = importlib.util.spec_from_file_location("doctor_payoff_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("measure_calls, replay_wall, ok, words", [
    (5, 9.0, True, "ratio 1.00 (within 20%: yes"),  # doctor 50 / (14 - 4) = 5 on host time
    (8, 7.7, True, "ratio 0.62 (within 20%: no; with the replay's wall time: 8, ratio 1.00)"),  # 50 / 6.3 -> 8
    (20, 4.0, False, "ratio 0.25 (within 20%: no; with the replay's wall time: 5, ratio 0.25)"),
    (None, 9.0, False, "measure None calls, ratio n/a"),
])
def test_the_payoff_script_compares_both_break_evens_and_says_what_the_clocks_explain(measure_calls, replay_wall,
                                                                                          ok, words):
    compare = _payoff_script().compare
    s = site(replays=10, replay_s=40e-6)
    s.update(payoff(s, 14.0))
    m = {"calls": measure_calls, "setup_us": 60.0, "saved_us": 7.5, "reason": ""}
    out = compare(m, 15.0, 7.5, s, 14.0, replay_wall)
    assert out["ok"] is ok and words in out["lines"][-1]
    assert out["ratio"] == (None if measure_calls is None else pytest.approx(5 / measure_calls))
    assert "doctor: set-up 50.0 us" in out["lines"][1] and "replay 4.00 us (cuGraphLaunch, host)" in out["lines"][1]
    assert out["lines"][0].startswith("measure: set-up 60.0 us")


def _steps(accepted: bool, steps: int = 6):
    """A cugraphlab site captured every step: the first instantiated, each later one updated into it (accepted)
    or refused and instantiated again (replay_update_refused, H200 round 9)."""
    w = ("u.py", 26, "main")
    ev = []
    for step in range(steps):
        ev.append(StackEvent("captured", "cugraphlab", *w, call=f"0x{step}", seconds=140e-6))
        if step == 0 or not accepted:
            if step:
                ev.append(StackEvent("update", "cugraphlab", *w, call="0x100", ok=False, seconds=6e-6,
                                     code="CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED", text="other nodes",
                                     source="u.py:34"))
            ev.append(StackEvent("instantiated", "cugraphlab", *w, call=f"0x{100 + step}", seconds=16e-6))
        else:
            ev.append(StackEvent("update", "cugraphlab", *w, call="0x100", ok=True, seconds=6e-6,
                                 code="CU_GRAPH_EXEC_UPDATE_SUCCESS"))
        ev.append(StackEvent("replay", "cugraphlab", *w, call="0x100", count=1, seconds=6e-6))
    return ev


def test_capturing_each_step_into_accepted_updates_is_not_a_recapture_hazard():
    (ok,) = site_stats(_steps(accepted=True))
    assert (ok["captures"], ok["instantiations"], ok["updates"], ok["refused"], ok["replays"]) == (6, 1, 5, 0, 6)
    assert not ok["recaptures_every_replay"]
    (bad,) = site_stats(_steps(accepted=False))
    assert (bad["instantiations"], bad["refused"]) == (6, 5) and bad["recaptures_every_replay"]
    assert "re-captured on every use" in render_sites([bad]) and "re-captured on every use" not in render_sites([ok])
