"""``solrace bench failover`` runs end to end on a tiny load: its own primary, two replicas
and three sentinels, a real server on them, the primary killed with -9 mid-race; every
racer has an action answered again and the report says when, and how many acknowledged
actions the new primary lacks."""

from __future__ import annotations

import json
import subprocess
import sys


def test_every_racer_is_answered_again_after_the_primary_is_killed_and_nothing_is_lost() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "failover", "--runs", "1"]
    command += ["--pairs", "1", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    (run,) = result["runs"]
    assert run["errors"] == [] and run["back_s"] is not None
    assert 0 < run["first_back_s"] <= run["back_s"] == result["back_p99_s"]
    assert run["acked"] > 0 and result["lost"] == run["lost"] == 0  # WAIT 1 by default
    assert result["runs_not_back"] == 0 and isinstance(result["target_met"], bool)
