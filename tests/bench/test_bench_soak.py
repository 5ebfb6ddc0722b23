"""``solrace bench soak`` runs end to end on a tiny load, with the memory store and with a
redis-server of its own, and reports the server's RSS over time, its drift after the
warm-up, and the races and actions played (the figures are for people, not for tests)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.parametrize("store", [[], ["--redis"]], ids=["memory", "redis"])
def test_the_soak_reports_rss_over_time_and_the_races_that_ended(store: list[str]) -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "soak", "--minutes", "0.1"]
    command += ["--players", "4", "--rate", "40", "--race-actions", "6", "--every", "2"]
    done = subprocess.run(
        [*command, *store, "--json"], capture_output=True, text=True, timeout=120, check=True
    )
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["warmup_s"] == pytest.approx(1.2)
    assert [round(s["at_s"]) for s in result["samples"]] == [0, 1, 2, 4, 6]
    assert all(s["rss_kib"] > 0 for s in result["samples"])
    assert (result["samples"][0]["redis_rss_kib"] is None) is (not store)
    assert result["races_ended"] > 0 and result["actions"] > result["races_ended"]
    assert result["racers_resigned"] >= 2 * result["races_ended"] - result["racers_finished"]
    assert result["errors"] == {}
    assert isinstance(result["target_met"], bool)
    assert result["drift_mib"] == pytest.approx(
        result["rss_end_mib"] - result["rss_after_warmup_mib"], abs=0.11
    )


def test_the_soak_prints_a_line_per_reading_and_the_verdict() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "soak", "--minutes", "0.05"]
    command += ["--players", "2", "--rate", "20", "--race-actions", "4", "--every", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("soak: 2 players") and "store: memory" in lines[0]
    assert "server RSS MiB" in lines[1]
    assert [float(line.split()[0]) for line in lines[2:-2]] == pytest.approx(
        [0, 0.6, 1, 2, 3], abs=0.15
    )
    assert "target: flat within +-5%" in lines[-2]
    assert lines[-1].startswith("races ended: ")


def test_the_mixed_soak_adds_guests_spectators_and_rematches_on_redis() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "soak", "--minutes", "0.15"]
    command += ["--players", "4", "--rate", "40", "--race-actions", "6", "--every", "3"]
    done = subprocess.run(
        [*command, "--redis", "--mix", "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    result = json.loads(done.stdout.splitlines()[-1])
    mix = result["mix"]
    assert mix.get("guests", 0) >= 3 and mix.get("watched", 0) >= 1, mix
    assert result["races_ended"] > 0 and result["errors"] == {}
