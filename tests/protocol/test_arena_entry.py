"""Who may enter an arena (protocol/arena_entry.py): one test or more per sentence of
docs/arenas.md, "Calendar and entry", "Entry" (23 to 29; the number leads each group),
allowed and refused, then properties; and docs/protocol.md lists every code."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.arena_entry import ENTRY_CODES, EntryConditions, EntryFacts, may_enter
from protocol.standing import GOOD, StandingRule, standing

DAY_MS = 86_400_000
NOW = 400 * DAY_MS
OLD = NOW - 30 * DAY_MS
BAND = EntryConditions(rating_min=1400, rating_max=1800, min_rated_games=10)
GOOD_PLAYER = EntryFacts(False, False, dict(GOOD), rating=1500.0, rated_games=12)
PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def refusal(conditions: EntryConditions, facts: EntryFacts) -> tuple[str, str] | None:
    refused = may_enter(conditions, facts)
    return None if refused is None else (refused.code, refused.message)


# 23. A bot never enters.


def test_a_bot_never_enters_an_arena() -> None:
    assert refusal(EntryConditions(), replace(GOOD_PLAYER, bot=True)) == (
        "bot_refused",
        "Arenas are for people: a bot never enters one.",
    )


# 24. A player removed by fair play never enters that arena again.


def test_a_player_fair_play_removed_never_enters_the_arena_again() -> None:
    refused = refusal(EntryConditions(), replace(GOOD_PLAYER, removed=True))
    assert refused is not None and refused[0] == "removed_from_arena"
    assert "removed you from this arena" in refused[1]


# 25. Not in good standing: the standing's own code and sentence.


def test_a_guest_is_refused_with_the_standings_code_and_sentence() -> None:
    guest = standing(StandingRule(), None, 0, NOW)
    refused = refusal(EntryConditions(), replace(GOOD_PLAYER, standing=guest))
    assert refused == ("guest", "Ranked play needs an account: register first.")


def test_an_account_too_new_or_with_too_few_games_is_refused_as_standing_says() -> None:
    new = standing(StandingRule(), NOW - DAY_MS, 40, NOW)
    few = standing(StandingRule(), OLD, 3, NOW)
    assert refusal(EntryConditions(), replace(GOOD_PLAYER, standing=new)) == (
        "account_too_new",
        new["reason"],
    )
    assert refusal(EntryConditions(), replace(GOOD_PLAYER, standing=few)) == (
        "too_few_games",
        "Ranked play opens when your account is 3 days old and has finished 10 games; "
        "yours: 30 days, 3 games.",
    )


def test_an_account_in_good_standing_enters_an_open_arena() -> None:
    good = standing(StandingRule(), OLD, 10, NOW)
    assert may_enter(EntryConditions(), replace(GOOD_PLAYER, standing=good)) is None


# 26. The rating band: below, above refused; the ends are in; rounded as shown; 1500 unrated.


def test_a_rating_below_the_band_is_refused() -> None:
    assert refusal(BAND, replace(GOOD_PLAYER, rating=1399.4)) == (
        "rating_below_band",
        "This arena is for ratings from 1400; yours is 1399.",
    )


def test_a_rating_above_the_band_is_refused() -> None:
    assert refusal(BAND, replace(GOOD_PLAYER, rating=1801.0)) == (
        "rating_above_band",
        "This arena is for ratings up to 1800; yours is 1801.",
    )


def test_the_bands_ends_are_in_it_as_ratings_are_shown() -> None:
    for rating in (1399.5, 1400.0, 1800.0, 1800.4):  # shown as the server shows it: round()
        assert may_enter(BAND, replace(GOOD_PLAYER, rating=rating)) is None


def test_a_band_open_at_one_end_refuses_only_at_the_other() -> None:
    low = EntryConditions(rating_min=1600)
    assert may_enter(low, replace(GOOD_PLAYER, rating=3000.0)) is None
    assert may_enter(low, replace(GOOD_PLAYER, rating=1500.0)) is not None
    high = EntryConditions(rating_max=1600)
    assert may_enter(high, replace(GOOD_PLAYER, rating=0.0)) is None


def test_a_player_never_rated_in_the_game_counts_as_fifteen_hundred() -> None:
    unrated = replace(GOOD_PLAYER, rating=1500.0, rated_games=0)
    assert may_enter(EntryConditions(rating_min=1500), unrated) is None
    refused = refusal(EntryConditions(rating_min=1501), unrated)
    assert refused is not None and refused[0] == "rating_below_band"


# 27. Fewer rated games in the game than asked is refused.


def test_too_few_rated_games_in_the_game_is_refused() -> None:
    assert refusal(BAND, replace(GOOD_PLAYER, rated_games=9)) == (
        "too_few_rated_games",
        "This arena asks for 10 rated games in its game; you have 9.",
    )
    assert may_enter(BAND, replace(GOOD_PLAYER, rated_games=10)) is None


# 28. Checked in order; the first unmet is the answer; all met: enters.


def test_the_first_condition_unmet_is_the_answer() -> None:
    worst = EntryFacts(True, True, standing(StandingRule(), None, 0, NOW), 100.0, 0)
    answers = []
    facts = worst
    for fix in (
        {"bot": False},
        {"removed": False},
        {"standing": dict(GOOD)},
        {"rating": 4000.0},
        {"rating": 1500.0},
        {"rated_games": 10},
    ):
        refused = may_enter(BAND, facts)
        answers.append(None if refused is None else refused.code)
        facts = replace(facts, **fix)  # type: ignore[arg-type]
    answers.append(None if may_enter(BAND, facts) is None else "refused")
    assert answers == [
        "bot_refused",
        "removed_from_arena",
        "guest",
        "rating_below_band",
        "rating_above_band",
        "too_few_rated_games",
        None,
    ]


# 29. Checked at joining and again at the start: what changed between is refused then.


def test_a_player_whose_rating_left_the_band_since_joining_is_refused_at_the_start() -> None:
    at_joining = replace(GOOD_PLAYER, rating=1790.0)
    at_start = replace(at_joining, rating=1812.0)
    assert may_enter(BAND, at_joining) is None
    refused = may_enter(BAND, at_start)
    assert refused is not None and refused.code == "rating_above_band"


# Properties, and the codes' documentation.


@settings(max_examples=300, deadline=None)
@given(
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, 1450, 1500]),
    st.sampled_from([None, 1550, 1700]),
    st.integers(0, 20),
    st.floats(0, 4000, allow_nan=False),
    st.integers(0, 30),
    st.sampled_from([dict(GOOD), standing(StandingRule(), None, 0, NOW)]),
)
def test_a_player_enters_exactly_when_every_condition_holds(
    bot: bool,
    removed: bool,
    low: int | None,
    high: int | None,
    games: int,
    rating: float,
    played: int,
    their_standing: dict[str, object],
) -> None:
    conditions = EntryConditions(low, high, games)
    refused = may_enter(conditions, EntryFacts(bot, removed, their_standing, rating, played))
    shown = round(rating)
    holds = (
        not bot
        and not removed
        and their_standing["code"] is None
        and (low is None or shown >= low)
        and (high is None or shown <= high)
        and played >= games
    )
    assert (refused is None) == holds
    assert refused is None or (refused.code in ENTRY_CODES and refused.message.endswith("."))


def test_docs_protocol_md_lists_every_entry_code() -> None:
    table = PROTOCOL.read_text().split("## Error codes", 1)[1]
    listed = set(re.findall(r"`([a-z_]+)`", table))
    assert set(ENTRY_CODES) | {"bad_arena", "arena_entry_refused", "bad_arena_pairing"} <= listed
