"""``solrace bench recovery`` runs end to end on a tiny load: a real server on Redis is
killed and replaced, and every racer comes back (welcome, its race in the snapshot, one
more action accepted); both times are reported."""

from __future__ import annotations

import json
import subprocess
import sys


def test_every_racer_comes_back_after_the_kill_and_both_times_are_reported() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "recovery", "--racers", "6"]
    command += ["--actions-before", "3", "--concurrency", "2", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["racers_back"] == 6 and result["failures"] == 0
    assert result["kill_to_up_s"] > 0 and result["up_to_all_back_s"] > 0
    assert result["back_p50_s"] <= result["back_p99_s"] <= result["up_to_all_back_s"]
    assert isinstance(result["target_met"], bool)


def test_the_report_names_the_target() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "recovery", "--racers", "2"]
    command += ["--actions-before", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("recovery: 2 racers")
    assert lines[1].startswith("kill -9 -> new process serving:")
    assert "every racer back" in lines[2] and "target <= 5 s" in lines[2]
    assert "back 2, failed 0" in lines[3]
