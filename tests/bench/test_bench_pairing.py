"""``solrace bench pairing`` and ``solrace bench argon2`` run end to end on a small load;
the pairing figures agree with the simulation they come from, which pairs everyone it can,
each pair within both players' windows when it was made."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.pairingbench import simulate
from protocol.pairing import WINDOW, accepts
from server.desks import passwords

GAMES = ["sanibel", "shady_lanes"]


def bench(*arguments: str) -> object:
    command = [sys.executable, "-m", "solrace.cli", "bench", *arguments, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def test_the_pairing_benchmark_pairs_everyone_but_an_odd_one_out_per_game() -> None:
    result = bench("pairing", "--players", "101", "--seconds", "5", "--games", *GAMES)
    assert isinstance(result, dict)
    assert set(result["games"]) == set(GAMES)
    assert sum(row["players"] for row in result["games"].values()) == result["all"]["players"]
    assert result["all"]["players"] == 101
    for row in [*result["games"].values(), result["all"]]:
        assert 2 * row["pairs"] + row["left"] == row["players"]
        wait, gap = row["wait_ms"], row["gap"]
        assert 0 <= wait["median"] <= wait["p90"] <= wait["max"]
        assert 0 <= gap["median"] <= gap["p90"] <= gap["max"]
    for row in result["games"].values():
        assert row["left"] == row["players"] % 2  # an odd one out, nobody else
    assert len(result["left"]) == result["all"]["left"]


def test_the_simulation_behind_the_figures_pairs_within_both_windows() -> None:
    sim = simulate(101, 5.0, 250, GAMES, seed=1)
    result = bench("pairing", "--players", "101", "--seconds", "5", "--games", *GAMES)
    assert isinstance(result, dict)
    assert result["all"]["pairs"] == len(sim.pairs)
    assert result["ended_ms"] == sim.ended_ms
    waits = []
    for pair, at in sim.pairs:
        assert accepts(pair.first, pair.second, at)
        for entry in (pair.first, pair.second):
            waits.append(at - entry.joined_ms)
    assert min(waits) >= 0 and max(waits) == result["all"]["wait_ms"]["max"]
    games_left = [game for game, _ in sim.left]
    assert len(games_left) == len(set(games_left))  # at most an odd one out per game
    for _, entry in sim.left:  # who accepted anyone by the end, so could not be paired
        assert sim.ended_ms - entry.joined_ms >= WINDOW.unlimited_after_ms


def test_the_argon2_benchmark_times_each_parameter_set_and_marks_the_chosen_one() -> None:
    rows = bench("argon2", "--repeat", "1")
    assert isinstance(rows, list)
    chosen = [row for row in rows if row["chosen"]]
    assert len(chosen) == 1
    assert (chosen[0]["time_cost"], chosen[0]["memory_mib"] * 1024) == (
        passwords.TIME_COST,
        passwords.MEMORY_COST_KIB,
    )
    for row in rows:
        assert row["wall_ms"] > 0 and row["cpu_ms"] > 0 and row["parallelism"] == 1
