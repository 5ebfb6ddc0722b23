"""``solrace bench memory`` runs end to end on a tiny load and reports, for every game, the
bytes a live race keeps per accepted action, now and as kept before (the figures are for
people to read; the tests check what they count)."""

from __future__ import annotations

import json
import subprocess
import sys

from client.memorybench import TARGET_BYTES_PER_ACTION, measure
from protocol.games import GAMES


def test_the_memory_benchmark_reports_every_game_on_a_tiny_load() -> None:
    command = [sys.executable, "-m", "client.cli", "bench", "memory"]
    command += ["--races", "1", "--actions", "40", "--undo-share", "0.3", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    assert set(result) == set(GAMES)
    for game, row in result.items():
        assert row["game"] == game and row["racers"] == 2
        assert 0 < row["undos"] < row["accepted"] <= 2 * 40
        assert row["bytes_per_action"] > 0 and row["before_bytes_per_action"] > 0


def test_the_table_names_each_game_and_the_target() -> None:
    command = [sys.executable, "-m", "client.cli", "bench", "memory"]
    command += ["--races", "1", "--actions", "10", "--games", "shady_lanes"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert f"target <= {TARGET_BYTES_PER_ACTION}" in lines[0]
    assert [line.split()[0] for line in lines[1:]] == ["shady_lanes"]


def test_long_playouts_keep_more_than_nothing_per_action() -> None:
    figures = measure("mount_sunflower", races=1, actions=300, seed=3)
    assert figures.accepted > 300
    # a live race must keep at least its log: some bytes for every accepted action
    assert figures.bytes_per_action > 8
    assert figures.before_bytes_per_action > 8
