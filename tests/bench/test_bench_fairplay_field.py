"""``solrace bench fairplay --field``: simulated days of a daily board judged by the time
rules as the server judges them; no run is judged against a field of fewer than 20, a
day's first runs are judged once the day has that many, a
knower far faster than the field is caught on its first run that knows the deal and a
knower slower than the field's fastest tenth is not, and the figures add up."""

from __future__ import annotations

import random

import pytest

from bench.fairplayfield import print_field, simulate
from protocol.fairplay import BEYOND_FIELD, FIELD_RUNS

RUNS = [[[f"move {n}" for n in range(100)]]]  # one deal, one winning run of 100 actions


def test_no_run_is_judged_against_a_field_of_fewer_than_20_finished_runs() -> None:
    got = simulate(RUNS, 0.5, accounts=FIELD_RUNS - 8, days=10, seed=1, knower_count=6)
    assert got["judged_by_field"] == 0
    assert got["flagged"][BEYOND_FIELD] == 0


def test_a_knower_far_faster_than_the_field_is_caught_on_its_first_knowing_run_only() -> None:
    got = simulate(RUNS, 0.5, accounts=400, days=10, seed=1, knower_count=80)
    fastest, _, _, slowest = got["knower_first_by_speed"].values()
    assert fastest[1] > 0 and fastest[0] / fastest[1] > 0.5  # 285 ms a move
    assert slowest[1] > 0 and slowest[0] == 0  # 1,500 ms a move: slower than most people
    assert got["knower_flagged"] == got["knower_first_flagged"]  # then its best is its own


def test_a_day_s_first_runs_are_judged_once_its_board_has_a_field_as_the_server_does() -> None:
    got = simulate(RUNS, 0.5, accounts=400, days=5, seed=2, knower_count=0)
    assert got["honest_finished"] > 5 * (FIELD_RUNS + 1)  # every day's board reaches a field
    assert got["judged_late"] >= 5 * (FIELD_RUNS - 1)  # at least its first runs, each day
    assert got["judged_by_field"] == got["honest_finished"]  # none left unjudged


@pytest.mark.parametrize("rate", [0.0, 0.3])
def test_the_figures_add_up(rate: float, capsys: pytest.CaptureFixture[str]) -> None:
    got = simulate(RUNS, rate, accounts=200, days=6, seed=random.randrange(100), knower_count=20)
    assert got["honest_finished"] <= got["honest_runs"]
    assert got["judged_by_field"] <= got["honest_finished"]
    assert sum(got["flagged"].values()) <= got["honest_finished"]
    assert got["honest_accounts_flagged"] <= sum(got["flagged"].values())
    assert got["knower_first_flagged"] <= got["knower_first"] <= 20
    if rate == 0.0:
        assert got["honest_finished"] == 0
    print_field({"game": "g", "accounts": 200, "days": 6, "knowers": 20, "rates": {rate: got}})
    assert "knowers: first run that knows the deal" in capsys.readouterr().out
