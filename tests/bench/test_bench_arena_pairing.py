"""``solrace bench arena-pairing`` runs end to end on a small field, and its figures agree
with the waves they time: every heat full, nobody both paired and waiting."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.arenapairingbench import measure
from protocol.arena_pairing import PairingRule


def test_the_arena_pairing_benchmark_prints_each_heat_sizes_wave_times() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "arena-pairing"]
    arguments = ["--players", "120", "--repeat", "3", "--json"]
    done = subprocess.run(command + arguments, capture_output=True, text=True, check=True)
    rows = json.loads(done.stdout)
    assert [(row["heat_size"], row["method"]) for row in rows] == [
        (2, "bands of 50"),
        (2, "one graph"),
        (3, "cut in order"),
        (4, "cut in order"),
    ]
    for row in rows:
        assert 0 <= row["p50_ms"] <= row["p95_ms"] <= row["max_ms"]
        assert abs(row["heats"] * row["heat_size"] + row["waiting"] - 120) < 0.5
    table = subprocess.run(
        [*command, "--players", "40", "--repeat", "1", "--quick"], capture_output=True, text=True
    )
    assert "bands of 50" in table.stdout and "one graph" not in table.stdout


def test_the_benchmarks_waves_pair_most_players_and_repeat_nobody_fresh() -> None:
    row = measure(200, 2, seed=3, rule=PairingRule(4))
    assert row["waves"] == 2 and row["heats"] >= 35  # about a tenth take their breather
    assert row["waiting"] == 200 - 4 * row["heats"]


def test_too_small_a_field_is_refused() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "arena-pairing", "--players", "3"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode != 0 and "--players must be at least 8" in done.stderr
