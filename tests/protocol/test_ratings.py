"""Glicko-2 ratings: the paper's worked example, races of two and more, the RD's bounds and
growth with absence, storage, and properties that must hold for any ratings (the Glicko-2
steps alone, ``NO_GUARDS``; the farming guards are tests/protocol/test_rating_guards.py)."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.ranking import Run
from protocol.ratings import (
    DEFAULT,
    NO_GUARDS,
    PROVISIONAL_RD,
    RATING_PERIOD_MS,
    RD_MAX,
    RD_MIN,
    Rating,
    aged,
    is_provisional,
    new_volatility,
    pairwise,
    race_updates,
    update,
)

DAY = RATING_PERIOD_MS
NOW = 1_700_000_000_000


def run(player: str, finished: bool = True, time_ms: int = 60_000, progress: int = 52) -> Run:
    return Run(
        player=player,
        name=player.title(),
        race="r1",
        game="sanibel",
        deal=1,
        finished=finished,
        time_ms=time_ms,
        actions=100,
        progress=progress,
        at_ms=NOW,
    )


ratings = st.builds(
    Rating,
    rating=st.floats(500, 3000),
    rd=st.floats(RD_MIN, RD_MAX),
    volatility=st.floats(0.03, 0.12),
    games=st.integers(0, 1000),
    at_ms=st.integers(0, NOW),
)
scores = st.sampled_from([0.0, 0.5, 1.0])
results = st.lists(st.tuples(ratings, scores), min_size=1, max_size=7)


def test_the_papers_worked_example_gives_its_published_figures() -> None:
    player = Rating(1500, 200, 0.06)
    opponents = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = update(player, opponents)
    assert after.rating == pytest.approx(1464.06, abs=0.02)  # the paper rounds mu' first
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)  # 0.059996 cut to 5 places
    assert after.games == 3


def test_a_new_player_starts_at_1500_and_is_provisional() -> None:
    assert (DEFAULT.rating, DEFAULT.rd, DEFAULT.volatility, DEFAULT.games) == (1500, 350, 0.06, 0)
    assert is_provisional(DEFAULT)


def test_a_rating_stops_being_provisional_after_about_ten_races_with_settled_players() -> None:
    settled = Rating(1500, 60, 0.06)
    player, races = DEFAULT, 0
    while is_provisional(player):
        player = update(player, [(settled, races % 2)], periods=0.0)
        races += 1
    assert 8 <= races <= 12 and player.rd <= PROVISIONAL_RD


def test_a_head_to_head_race_rates_the_winner_up_and_the_loser_down_at_once() -> None:
    ann, bob = Rating(1500, 100, 0.06, 30, NOW - DAY), Rating(1500, 100, 0.06, 30, NOW - DAY)
    runs = [run("ann", time_ms=50_000), run("bob")]
    new = race_updates(runs, {"ann": ann, "bob": bob}, NOW, NO_GUARDS)
    assert new["ann"].rating > 1500 > new["bob"].rating
    assert new["ann"].rating - 1500 == pytest.approx(1500 - new["bob"].rating)
    assert new["ann"].games == new["bob"].games == 31
    assert new["ann"].at_ms == new["bob"].at_ms == NOW


def test_racers_without_a_rating_start_from_the_default() -> None:
    runs = [run("ann"), run("bob", finished=False, progress=20)]
    new = race_updates(runs, {}, NOW, NO_GUARDS)
    assert new["ann"].rating > DEFAULT.rating > new["bob"].rating
    assert new["ann"].rd < RD_MAX


def test_a_race_of_one_is_not_rated() -> None:
    assert race_updates([run("ann")], {"ann": DEFAULT}, NOW) == {}


def test_a_race_of_several_counts_every_pair_of_the_final_ranking() -> None:
    runs = [
        run("ann", time_ms=40_000),
        run("bob", time_ms=50_000),
        run("cy", finished=False, progress=30),
        run("dee", finished=False, progress=30),  # the same as cy's run: they draw
    ]
    games = pairwise(runs)
    assert games["ann"] == [("bob", 1.0), ("cy", 1.0), ("dee", 1.0)]
    assert games["bob"] == [("ann", 0.0), ("cy", 1.0), ("dee", 1.0)]
    assert games["cy"] == [("ann", 0.0), ("bob", 0.0), ("dee", 0.5)]
    new = race_updates(runs, {}, NOW, NO_GUARDS)
    assert new["ann"].rating > new["bob"].rating > DEFAULT.rating > new["cy"].rating
    assert new["cy"].rating == new["dee"].rating
    assert {r.games for r in new.values()} == {3}


def test_the_order_the_runs_come_in_does_not_change_the_ratings() -> None:
    runs = [run("ann", time_ms=40_000), run("bob"), run("cy", finished=False, progress=9)]
    assert race_updates(runs, {}, NOW) == race_updates(runs[::-1], {}, NOW)


def test_a_player_with_two_runs_in_one_race_is_refused() -> None:
    with pytest.raises(ValueError):
        race_updates([run("ann"), run("ann", time_ms=1)], {}, NOW)


def test_a_score_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError):
        update(DEFAULT, [(DEFAULT, 2.0)])


def test_a_day_away_grows_the_rd_by_one_periods_volatility() -> None:
    rating = Rating(1500, 100, 0.06, 50, NOW)
    later = aged(rating, NOW + DAY)
    assert later.rd == pytest.approx(math.sqrt(100**2 + (0.06 * 173.7178) ** 2))
    assert (later.rating, later.volatility, later.games) == (1500, 0.06, 50)


def test_a_long_absence_makes_a_rating_provisional_again_and_no_less_certain_than_new() -> None:
    rating = Rating(1800, 50, 0.06, 500, NOW)
    assert not is_provisional(aged(rating, NOW + 30 * DAY))
    assert is_provisional(aged(rating, NOW + 365 * DAY))
    assert aged(rating, NOW + 10_000 * DAY).rd == RD_MAX


def test_a_clock_behind_the_last_race_does_not_shrink_the_rd() -> None:
    rating = Rating(1500, 100, 0.06, 5, NOW)
    assert aged(rating, NOW - DAY) == rating


def test_races_in_quick_succession_add_no_growth_between_them() -> None:
    player = Rating(1500, 100, 0.06, 5, NOW)
    runs = [run("ann", time_ms=1), run("bob")]
    soon = race_updates(runs, {"ann": player, "bob": player}, NOW)["ann"]
    late = race_updates(runs, {"ann": player, "bob": player}, NOW + 30 * DAY)["ann"]
    assert soon.rd < late.rd


def test_ratings_are_stored_as_json_and_read_back_exactly() -> None:
    rating = update(Rating(1500, 200, 0.06, 7, NOW), [(Rating(1400, 30), 1.0)])
    rating = replace(rating, recent=("bob", "cy", "bob"), day=NOW // DAY, day_start=1480.5)
    assert Rating.from_dict(json.loads(json.dumps(rating.as_dict()))) == rating
    as_strings = {  # a Redis hash: numbers as strings, the recent opponents as JSON text
        key: json.dumps(value) if isinstance(value, list) else str(value)
        for key, value in rating.as_dict().items()
    }
    assert Rating.from_dict(as_strings) == rating


def test_a_rating_stored_before_the_farming_guards_reads_with_no_recent_games() -> None:
    old = {"rating": 1600.0, "rd": 80.0, "volatility": 0.06, "games": 40, "at_ms": NOW}
    assert Rating.from_dict(old) == Rating(1600.0, 80.0, 0.06, 40, NOW)


@given(
    phi=st.floats(RD_MIN / 173.7178, RD_MAX / 173.7178),
    sigma=st.floats(0.03, 0.12),
    v=st.floats(0.2, 50),
    delta=st.floats(-10, 10),
    tau=st.floats(0.3, 1.2),
)
def test_the_new_volatility_solves_the_papers_equation(
    phi: float, sigma: float, v: float, delta: float, tau: float
) -> None:
    """Step 5's f(x) (the paper's) changes sign within twice the tolerance of ln(sigma'**2)."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    x = math.log(new_volatility(phi, sigma, v, delta, tau) ** 2)
    assert f(x - 2e-6) >= 0 >= f(x + 2e-6)


@given(ratings, ratings, st.floats(0, 10))
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(
    player: Rating, opponent: Rating, periods: float
) -> None:
    won = update(player, [(opponent, 1.0)], periods)
    drew = update(player, [(opponent, 0.5)], periods)
    lost = update(player, [(opponent, 0.0)], periods)
    assert won.rating >= player.rating >= lost.rating
    assert won.rating >= drew.rating >= lost.rating


@given(ratings, results, st.floats(0, 1000))
def test_the_rd_stays_within_its_floor_and_cap(
    player: Rating, games: list[tuple[Rating, float]], periods: float
) -> None:
    after = update(player, games, periods)
    assert RD_MIN <= after.rd <= RD_MAX
    assert math.isfinite(after.rating) and after.volatility > 0
    assert after.games == player.games + len(games)


@given(ratings, ratings, scores)
def test_results_are_symmetric(one: Rating, two: Rating, score: float) -> None:
    """One gains only when the other loses, and between equals by the same amount."""
    one_after = update(one, [(two, score)])
    two_after = update(two, [(one, 1.0 - score)])
    assert (one_after.rating - one.rating) * (two_after.rating - two.rating) <= 1e-9
    twin = replace(two, rating=one.rating, rd=one.rd, volatility=one.volatility)
    gained = update(one, [(twin, score)]).rating - one.rating
    lost = update(twin, [(one, 1.0 - score)]).rating - twin.rating
    assert gained == pytest.approx(-lost, abs=1e-9)


@given(ratings, st.integers(0, 5000 * DAY), st.integers(0, 5000 * DAY))
def test_time_without_games_only_raises_the_rd_up_to_the_cap(
    rating: Rating, first: int, then: int
) -> None:
    once = aged(rating, rating.at_ms + first)
    twice = aged(rating, rating.at_ms + first + then)
    assert rating.rd <= once.rd <= twice.rd <= RD_MAX
    assert (twice.rating, twice.volatility, twice.games) == (
        rating.rating,
        rating.volatility,
        rating.games,
    )
    assert update(rating, [], first / DAY) == once


@given(st.lists(st.tuples(scores, ratings), min_size=2, max_size=8))
def test_every_racer_of_a_race_gets_one_game_per_other_racer(
    racers: list[tuple[float, Rating]],
) -> None:
    runs = [run(f"p{i}", time_ms=int(score * 10)) for i, (score, _) in enumerate(racers)]
    before = {f"p{i}": rating for i, (_, rating) in enumerate(racers)}
    new = race_updates(runs, before, NOW, NO_GUARDS)
    assert set(new) == set(before)
    for player, rating in new.items():
        assert rating.games == before[player].games + len(racers) - 1
        assert rating.at_ms == NOW and RD_MIN <= rating.rd <= RD_MAX
    best = min(runs, key=Run.sort_key).player
    if all(r.better_than(o) for r in runs if r.player == best for o in runs if o is not r):
        assert new[best].rating > before[best].rating
