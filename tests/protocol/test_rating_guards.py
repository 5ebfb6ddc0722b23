"""The farming guards of protocol/ratings.py, one test per sentence of the rule
(docs/fairness.md, "Ratings that farming cannot move"):
a game against a provisional opponent gives c**2 of its gain, nothing from a new account
and all of it from a settled one; a win over an opponent who gave up before 20 actions
gives nothing; a feeder (6 of its last 10 rated games against you) gives nothing; no rating
rises more than 100 in a UTC day; and no guard ever limits a loss."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.ranking import Run
from protocol.ratings import (
    DAILY_RISE,
    DEFAULT,
    EARLY_ACTIONS,
    FEEDER_GAMES,
    GUARDS,
    NO_GUARDS,
    PROVISIONAL_RD,
    RATING_PERIOD_MS,
    RD_MAX,
    RD_MIN,
    RECENT_GAMES,
    Guards,
    Rating,
    provisional_share,
    race_updates,
)

DAY = RATING_PERIOD_MS
NOON = 1_700_006_400_000 + DAY // 2  # noon UTC


def run(player: str, finished: bool, actions: int = 90, time_ms: int = 60_000) -> Run:
    return Run(player, player, "r", "sanibel", 1, finished, time_ms, actions, 52, NOON)


def settled(rating: float = 1500.0, rd: float = 60.0) -> Rating:
    return Rating(rating, rd, 0.06, 200, NOON - DAY)


def rise(ann: Rating, bob: Rating, bob_run: Run | None = None, guards: Guards = GUARDS) -> float:
    """Ann's rise when she finishes and Bob (``bob_run``: played out, not finished) loses."""
    runs = [run("ann", True), bob_run or run("bob", False)]
    return race_updates(runs, {"ann": ann, "bob": bob}, NOON, guards)["ann"].rating - ann.rating


def test_a_win_over_a_new_account_gives_nothing() -> None:
    assert rise(settled(), DEFAULT) == 0.0
    assert rise(settled(), DEFAULT, guards=NO_GUARDS) > 0


def test_a_win_over_a_settled_opponent_gives_all_of_its_gain() -> None:
    bob = settled(rd=PROVISIONAL_RD - 10)  # (a day since its last race adds a little)
    assert rise(settled(), bob) == pytest.approx(rise(settled(), bob, guards=NO_GUARDS))


def test_a_provisional_opponent_gives_c_squared_of_what_lies_above_the_expected_score() -> None:
    assert provisional_share(settled(rd=RD_MAX)) == 0.0
    assert provisional_share(settled(rd=230.0)) == pytest.approx(0.25)  # c = 120 / 240
    assert provisional_share(settled(rd=RD_MIN)) == 1.0
    bob = settled(rd=230.0)
    full = rise(settled(), bob, guards=NO_GUARDS)
    assert 0.2 * full < rise(settled(), bob) < 0.3 * full  # the volatility moves a little


def test_a_win_over_an_opponent_who_gave_up_before_20_actions_gives_nothing() -> None:
    quitter = run("bob", False, actions=EARLY_ACTIONS - 1)
    assert rise(settled(), settled(), quitter) == 0.0
    stayed = run("bob", False, actions=EARLY_ACTIONS)
    assert rise(settled(), settled(), stayed) > 0


def test_an_opponent_whose_recent_games_were_mostly_against_you_gives_nothing() -> None:
    feeder = replace(settled(), recent=("ann",) * FEEDER_GAMES + ("cy",) * 4)
    assert rise(settled(), feeder) == 0.0
    diverse = replace(settled(), recent=("ann",) * (FEEDER_GAMES - 1) + ("cy",) * 5)
    assert rise(settled(), diverse) > 0


def test_a_rating_keeps_the_opponents_of_its_latest_ten_rated_games() -> None:
    ann = replace(settled(), recent=tuple(f"p{n}" for n in range(RECENT_GAMES)))
    runs = [run("ann", True), run("bob", False), run("cy", False, time_ms=1)]
    new = race_updates(runs, {"ann": ann}, NOON)["ann"]
    assert new.recent == (*(f"p{n}" for n in range(2, RECENT_GAMES)), "bob", "cy")


def test_no_rating_rises_more_than_100_in_a_utc_day() -> None:
    ratings = {"ann": DEFAULT}
    for n in range(10):  # a new player beating ten settled players in a morning
        bob = f"bob{n}"
        ratings[bob] = settled()
        at_ms = NOON - DAY // 2 + n * 60_000
        runs = [replace(run("ann", True), at_ms=at_ms), run(bob, False)]
        ratings.update(race_updates(runs, ratings, at_ms))
    assert ratings["ann"].rating == pytest.approx(DEFAULT.rating + DAILY_RISE)
    assert ratings["ann"].day_start == DEFAULT.rating
    tomorrow = race_updates(
        [run("ann", True), run("cy", False)], {**ratings, "cy": settled()}, NOON + DAY
    )["ann"]
    assert tomorrow.rating > ratings["ann"].rating  # a new day, a new allowance
    assert tomorrow.day_start == ratings["ann"].rating


def test_a_fall_and_its_recovery_within_the_day_count_from_where_the_day_began() -> None:
    ann = replace(settled(1600.0), day=NOON // DAY, day_start=1700.0)  # down 100 today
    assert rise(ann, settled(1500.0)) > 0  # climbing back is a rise within the allowance
    capped = replace(ann, day_start=1600.0 - DAILY_RISE + 1.0)  # 99 up today already
    assert rise(capped, settled(1900.0)) == pytest.approx(1.0)


ratings = st.builds(
    Rating,
    rating=st.floats(800, 2500),
    rd=st.floats(RD_MIN, RD_MAX),
    volatility=st.floats(0.03, 0.12),
    games=st.integers(0, 500),
    at_ms=st.integers(NOON - 30 * DAY, NOON),
    recent=st.lists(st.sampled_from(["ann", "bob", "cy"]), max_size=RECENT_GAMES).map(tuple),
    day=st.sampled_from([0, NOON // DAY]),
    day_start=st.floats(700, 2600),
)


@settings(max_examples=300, deadline=None)
@given(ratings, ratings, st.integers(0, 120), st.booleans())
def test_no_guard_ever_limits_a_loss_or_gives_more_than_glicko(
    ann: Rating, bob: Rating, bob_actions: int, ann_wins: bool
) -> None:
    runs = [run("ann", ann_wins, 90), run("bob", not ann_wins, bob_actions, time_ms=70_000)]
    before = {"ann": ann, "bob": bob}
    guarded = race_updates(runs, before, NOON, GUARDS)
    free = race_updates(runs, before, NOON, NO_GUARDS)
    for player, rating in before.items():
        if free[player].rating <= rating.rating:  # a loss: exactly Glicko's
            assert guarded[player].rating == pytest.approx(free[player].rating, abs=1e-9)
        else:
            assert rating.rating - 1e-9 <= guarded[player].rating <= free[player].rating + 1e-9
        assert (guarded[player].rd, guarded[player].games) == pytest.approx(
            (free[player].rd, free[player].games), rel=0.05
        )
