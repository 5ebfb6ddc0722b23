"""Rating farms against the rules (bench/farmbench.py, protocol/rated.py): whatever one
person does in a day with a main account and second accounts (races they set up or quick
races, second accounts resigning at once or playing a few moves, the main finishing or
not), from one address the main account's rating cannot rise at all, and from an address
per account by at most what three rated races against each second account give."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.farmbench import DEFAULT, Farmed, alt, farm_day
from protocol.rated import PAIR_RACES_A_DAY

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
    assert 0 < farm_day([one], one_address=False) - DEFAULT.rating < MOST_ONE_RACE_GIVES
