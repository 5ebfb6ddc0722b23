"""``solrace solve``, ``solrace study`` and ``solrace bench solver``: exit statuses 0/1/3 for
won/unwinnable/unknown, JSON output, and wins that ``solrace replay`` confirms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solrace.cli import main

SOLRACE = Path(sys.executable).with_name("solrace")
# Sanibel with 9 rounds face down and 1 face up: deal 6 is proven unwinnable in 21 positions.
LOCKED = ["sanibel", "6", "--options", '{"down": 9, "up": 1}']


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_solve_prints_actions_that_solrace_replay_confirms_as_a_win(tmp_path: Path) -> None:
    solved = subprocess.run(
        [SOLRACE, "solve", "mount_sunflower", "1"], capture_output=True, text=True, timeout=120
    )
    assert solved.returncode == 0
    assert solved.stderr.startswith("won in ")
    replayed = subprocess.run(
        [SOLRACE, "replay", "mount_sunflower", "1", "-", "--json"],
        input=solved.stdout,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert replayed.returncode == 0
    assert json.loads(replayed.stdout)["won"] is True


def test_solve_json_gives_the_verdict_actions_nodes_and_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "solve", "sanibel", "1", "--json")
    assert (status, err) == (0, "")
    answer = json.loads(out)
    assert sorted(answer) == ["actions", "nodes", "seconds", "verdict"]
    assert answer["verdict"] == "won"
    assert all(isinstance(action, str) for action in answer["actions"])
    assert len(answer["actions"]) >= 104  # every card goes home one move at a time
    assert isinstance(answer["nodes"], int) and answer["nodes"] > 0
    assert isinstance(answer["seconds"], float)


def test_solve_exits_1_when_the_deal_is_proven_unwinnable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "solve", *LOCKED)
    assert (status, out) == (1, "")
    assert err.startswith("unwinnable: every reachable position searched")
    status, out, _ = run(capsys, "solve", *LOCKED, "--json")
    assert status == 1
    assert json.loads(out)["verdict"] == "unwinnable"
    assert json.loads(out)["actions"] == []


def test_solve_exits_3_when_the_node_budget_runs_out(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", "shady_lanes", "1", "--nodes", "100", "--json")
    assert (status, err) == (3, "")
    assert json.loads(out) == {**json.loads(out), "verdict": "unknown", "nodes": 100}


def test_solve_exits_3_when_the_time_budget_runs_out(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", "shady_lanes", "1", "--seconds", "0.05")
    assert (status, out) == (3, "")
    assert err.startswith("unknown: the budget ran out")


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "klondike", "1"],
        ["solve", "sanibel", "0"],
        ["solve", "sanibel", "1", "--nodes", "0"],
        ["solve", "sanibel", "1", "--seconds", "soon"],
        ["solve", "sanibel", "1", "--options", '{"down": 11}'],
        ["study", "sanibel", "--first", "0"],
        ["study", "sanibel", "--count", "0"],
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1


def test_study_tallies_a_range_of_deals_in_two_processes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(
        capsys,
        "study",
        *LOCKED[:1],
        *LOCKED[2:],
        "--first",
        "5",
        "--count",
        "3",
        "--jobs",
        "2",
        "--nodes",
        "20000",
        "--json",
    )
    assert (status, err) == (0, "")
    study = json.loads(out)
    assert [row["number"] for row in study["rows"]] == [5, 6, 7]
    assert study["counts"] == {"won": 0, "unwinnable": 3, "unknown": 0}
    assert study["shares"]["unwinnable"] == 1.0
    assert study["median_length"] is None
    assert study["jobs"] == 2


def test_study_prints_a_table_of_verdicts_times_and_lengths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "study", "mount_sunflower_easy", "--count", "2", "--jobs", "1")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("Mount Sunflower Easy (undo=True), deals 1..2, budget 200,000")
    assert lines[1].split() == ["verdict", "deals", "share"]
    assert lines[2].split() == ["won", "2", "100.0%"]
    assert lines[3].split() == ["unwinnable", "0", "0.0%"]
    assert lines[4].split() == ["unknown", "0", "0.0%"]
    assert lines[5].startswith("seconds per deal: median ")
    assert lines[6].startswith("median solution length: ")


def test_bench_solver_prints_positions_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "bench", "solver", "--seconds", "0.3", "--games", "sanibel", "--json"
    )
    assert status == 0
    figures = json.loads(out)["sanibel"]
    assert figures["positions_per_s"] > 0
    assert figures["deals"] >= figures["won"] >= 1
