"""Rating farms against the rules (bench/farmbench.py, protocol/rated.py): whatever one
person does in a day with a main account and second accounts (races they set up or quick
races, second accounts resigning at once or playing a few moves, the main finishing or
not), from one address the main account's rating cannot rise at all, and from an address
per account by at most what three rated races against each second account give. The issue's
farm (issue 33: second accounts each on an address of its own, three quick races a day
with each, resigned after 3 moves or played out and lost) moves the main account at most
100 in a day, with the guards of protocol/ratings.py, and the guards barely move a settled
field of honest players."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.farmbench import BEHAVIOURS, DEFAULT, Farmed, alt, farm_day, farm_days
from bench.ratingfield import measure
from protocol.rated import PAIR_RACES_A_DAY
from protocol.ratings import DAILY_RISE, GUARDS, NO_GUARDS

MOST_ONE_RACE_GIVES = 200.0  # a new player beating a new player gains about 170


@st.composite
def farms(draw: st.DrawFn) -> tuple[int, list[Farmed]]:
    alts = draw(st.sampled_from([1, 2, 7]))
    races = []
    for _ in range(draw(st.integers(1, 25))):
        chosen = draw(st.lists(st.integers(0, alts - 1), min_size=1, max_size=alts, unique=True))
        quick = draw(st.booleans()) and len(chosen) == 1
        races.append(
            Farmed(
                tuple(alt(i) for i in sorted(chosen)),
                quick,
                draw(st.sampled_from([0, 1, 2, 3, 10])),
                draw(st.booleans()),
            )
        )
    return alts, races


@settings(max_examples=150, deadline=None)
@given(farms())
def test_a_farm_from_one_address_gains_nothing(farm: tuple[int, list[Farmed]]) -> None:
    _, races = farm
    assert farm_day(races, one_address=True) == DEFAULT.rating


@settings(max_examples=150, deadline=None)
@given(farms())
def test_a_farm_from_many_addresses_gains_at_most_three_races_a_second_account(
    farm: tuple[int, list[Farmed]],
) -> None:
    alts, races = farm
    rise = farm_day(races, one_address=False) - DEFAULT.rating
    assert rise <= alts * PAIR_RACES_A_DAY * MOST_ONE_RACE_GIVES


def test_a_single_real_win_gains_less_than_the_bound_used_above() -> None:
    one = Farmed((alt(0),), True, 3, True)
    rise = farm_day([one], one_address=False, guards=NO_GUARDS) - DEFAULT.rating
    assert 0 < rise < MOST_ONE_RACE_GIVES


def test_without_the_guards_the_issue_s_farm_gives_what_the_issue_found() -> None:
    assert farm_days(7, False, "resign", 1, NO_GUARDS)[0] == pytest.approx(557, abs=1)


@pytest.mark.parametrize("settled", [False, True])
@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
def test_the_issue_s_farm_moves_the_main_account_at_most_100_in_a_day(
    settled: bool, behaviour: str
) -> None:
    rises = farm_days(7, settled, behaviour, 4, GUARDS)
    assert max(rises) <= DAILY_RISE + 1e-9


def test_second_accounts_that_quit_after_three_moves_give_nothing() -> None:
    assert farm_days(7, True, "resign", 3, GUARDS) == [0.0, 0.0, 0.0]


def test_second_accounts_that_only_feed_the_main_account_stop_giving_within_days() -> None:
    assert farm_days(7, True, "lose", 5, GUARDS)[2:] == [0.0, 0.0, 0.0]


def test_the_guards_barely_move_a_settled_field_of_honest_players() -> None:
    figures = measure(players=40, days=14, seed=3)
    on, off = figures["settled, guards on"], figures["settled, guards off"]
    assert abs(on["error"] - off["error"]) < 5 and abs(on["mean"] - off["mean"]) < 15


def test_solrace_bench_farm_prints_the_issue_s_farm_and_the_honest_field() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "farm", "--quick"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    issue = [line.split() for line in lines if line.strip().startswith("7 new     3 moves")]
    assert len(issue) == 2  # guards on, then off
    assert issue[0][-4:] == ["on", "+0", "+0", "+0"] and issue[1][-3] == "+557"
    assert any(line.strip().startswith("settled, guards on") for line in lines)
    assert any(line.strip().startswith("launch, guards off") for line in lines)
