"""``solrace bench arena`` runs end to end on a tiny arena with real processes (two nodes on
a Redis of their own, the watchers in processes of their own), and its report holds
together: every bot entered and was paired, heats were scored, every participant and
watcher got the standings of every heat, the watchers were held, the figures are ordered,
the bots' process says how late its own loop ran.
No figure is held to a target here; the arithmetic behind them is checked on its own."""

from __future__ import annotations

import json
import subprocess
import sys
from array import array
from collections import Counter
from typing import Any

import pytest

from bench.arenareport import MS, deliveries, quantiles

PLAYERS, WATCHERS = 8, 6


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    command = [sys.executable, "-m", "solrace.cli", "bench", "arena", "--quick", "--json"]
    command += ["--players", str(PLAYERS), "--watchers", str(WATCHERS), "--minutes", "0.2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_every_bot_entered_was_paired_and_its_heats_were_scored(report: dict[str, Any]) -> None:
    assert report["settings"]["players"] == PLAYERS and report["settings"]["nodes"] == 2
    first = report["pairing"]["first wave (arena_join -> paired)"]
    assert first["count"] == PLAYERS
    assert report["heats_scored"] >= 1 and report["heats_measured"] >= 1
    assert "--no-hold-flagged" in report["serve_options"]  # said, as the bench decided


def test_every_participant_and_watcher_got_the_standings_of_every_heat(
    report: dict[str, Any],
) -> None:
    participants, watchers = report["standings"].values()
    assert report["heats_measured"] >= 1
    assert participants["count"] == PLAYERS * report["heats_measured"]
    assert watchers["count"] == WATCHERS * report["heats_measured"]
    assert participants["missed"] == 0 and watchers["missed"] == 0
    held = report["watchers_held"]
    assert held["held"] == held["alive"] == held["connected"] == WATCHERS


def test_the_figures_are_ordered_and_the_cpu_is_counted(report: dict[str, Any]) -> None:
    for row in [*report["pairing"].values(), *report["standings"].values()]:
        if row["count"]:
            middle = row.get("p95_ms", row.get("p99_ms"))
            assert 0 <= row["p50_ms"] <= middle <= row["max_ms"]
    assert report["cpu"]["nodes_s"] > 0 and report["cpu"]["nodes_ms_per_heat"] > 0


def test_the_bots_process_says_how_late_its_own_loop_ran(report: dict[str, Any]) -> None:
    lag = report["bots_loop_lag"]  # the participants' times are that process's reading
    assert lag["count"] >= 0.8 * 10 * 60 * 0.2  # a probe every 0.1 s over the window
    assert 0 <= lag["p50_ms"] <= lag["p99_ms"] <= lag["max_ms"]


def test_a_heat_s_delay_is_to_the_first_standings_of_its_version_or_later() -> None:
    versions, times = array("q", [2, 5, 9]), array("q", [1_000 * MS, 2_000 * MS, 3_000 * MS])
    heats = [(1, 900 * MS), (3, 1_500 * MS), (5, 1_600 * MS), (10, 2_900 * MS)]
    histogram, missed = deliveries([(versions, times), (versions, times)], heats)
    assert histogram == Counter({100: 2, 500: 2, 400: 2})
    assert missed == 2  # version 10 never reached either connection


def test_quantiles_read_a_histogram_of_whole_milliseconds() -> None:
    assert quantiles(Counter({10: 98, 20: 1, 900: 1}), 0.5, 0.99, 1.0) == [10.0, 900.0, 900.0]
    assert quantiles(Counter(), 0.5) == [None]
