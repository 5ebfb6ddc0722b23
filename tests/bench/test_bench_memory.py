"""``solrace bench memory`` runs end to end on a tiny load and reports, for every game, the
bytes a live race keeps per accepted action, now and as kept before; and a live race keeps
at most the target (300 bytes) per accepted action."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench.memorybench import TARGET_BYTES_PER_ACTION, measure
from protocol.games import GAMES


def test_the_memory_benchmark_reports_every_game_on_a_tiny_load() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "memory"]
    command += ["--races", "1", "--actions", "40", "--undo-share", "0.3", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    assert set(result) == set(GAMES)
    for game, row in result.items():
        assert row["game"] == game and row["racers"] == 2
        assert 0 < row["undos"] < row["accepted"] <= 2 * 40
        assert row["bytes_per_action"] > 0 and row["before_bytes_per_action"] > 0


def test_the_table_names_each_game_and_the_target() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "memory"]
    command += ["--races", "1", "--actions", "10", "--games", "shady_lanes"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert f"target <= {TARGET_BYTES_PER_ACTION}" in lines[0]
    assert [line.split()[0] for line in lines[1:]] == ["shady_lanes"]


@pytest.mark.parametrize("game", list(GAMES))
def test_a_live_race_keeps_at_most_the_target_per_accepted_action(game: str) -> None:
    """At a small load, where the bounded caches (replies, parsed actions) still weigh."""
    figures = measure(game, races=2, actions=800, seed=2)
    assert figures.accepted > 1500 and figures.undos > 0
    assert 8 < figures.bytes_per_action <= TARGET_BYTES_PER_ACTION
    assert figures.before_bytes_per_action > 2 * figures.bytes_per_action
