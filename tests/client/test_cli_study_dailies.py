"""``solrace study --dailies``: the server's daily certification over consecutive days,
per game: days certified, seconds (median, 95th percentile, maximum) and candidates tried."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from client.commands.study import STUDY_SECRET
from protocol.daily import candidate_deals
from protocol.daily_choice import max_candidates
from protocol.games import rules_for
from protocol.replay import replay
from protocol.solver import solve
from solrace.cli import main

GAMES_RUN = ("sanibel", "mount_sunflower_easy")


def test_dailies_prints_per_game_figures_consistent_with_its_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["study", "--dailies", "2", "--first-day", "2026-12-30", "--games", *GAMES_RUN]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["first_day"], report["last_day"]) == ("2026-12-30", "2026-12-31")
    for game in GAMES_RUN:
        figures = report["games"][game]
        rows = figures["rows"]
        assert [row["day"] for row in rows] == ["2026-12-30", "2026-12-31"]
        assert figures["certified"] == sum(row["certified"] for row in rows) == 2
        times = sorted(row["seconds"] for row in rows)
        assert times[0] <= figures["median_seconds"] <= figures["p95_seconds"]
        assert figures["p95_seconds"] <= figures["max_seconds"] == round(times[-1], 2)
        assert figures["max_tried"] == max(row["tried"] for row in rows) >= 1
        rules = rules_for(game)
        for row in rows:  # the server's candidates, and a deal the solver wins
            candidates = itertools.islice(
                candidate_deals(game, row["day"], STUDY_SECRET), max_candidates(game)
            )
            assert row["deal"] in list(candidates)
            solution = solve(rules, rules.deal(row["deal"]), max_nodes=row["nodes"])
            assert rules.is_won(replay(rules, row["deal"], solution.actions).position)

    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("daily certification, 2026-12-30..2026-12-31 (2 days)")
    assert len(lines) == 2 + len(GAMES_RUN)
    for line, game in zip(lines[2:], GAMES_RUN, strict=True):
        shape = rf"{game} +2/2 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +\d+"
        assert re.fullmatch(shape, line)


@pytest.mark.parametrize(
    "argv",
    [
        ["study", "sanibel", "--dailies", "2"],
        ["study", "--dailies", "2", "--first-day", "2026-13-01"],
        ["study", "--dailies", "0"],
        ["study"],
    ],
)
def test_dailies_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
