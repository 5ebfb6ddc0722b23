"""The arenas' calendar (protocol/arena_calendar.py): one test or more per sentence of
docs/arenas.md, "Calendar and entry" (18 to 22; the number leads each group here), then
properties of any calendar."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.arena_calendar import (
    DAY_MS,
    HOUR_MS,
    MINUTE_MS,
    SCHEDULES,
    Arena,
    check_arena_id,
    operator_arena,
    upcoming,
)
from protocol.arena_entry import BadArena, EntryConditions
from protocol.daily import day_start_ms
from protocol.errors import BadGame
from protocol.games import GAMES

DAY = day_start_ms("2026-12-06")  # a Sunday, 00:00 UTC
NOW = DAY + 4 * HOUR_MS + 7 * MINUTE_MS + 1234  # 04:07:01.234


def made(**changes: Any) -> Arena:
    """An operator's arena, checked, with ``changes`` to a valid one."""
    fields: dict[str, Any] = {
        "game": "sanibel",
        "key": "weekend",
        "title": "Weekend blitz",
        "start_ms": DAY + 20 * HOUR_MS,
        "length_ms": 45 * MINUTE_MS,
        "heat_size": 3,
        "conditions": EntryConditions(rating_min=1400),
        "now_ms": NOW,
    }
    return operator_arena(**{**fields, **changes})


# 18. Each game: hourly 30 min of heats of 2 on the hour; daily 60 min of 4 at 19:30, 10 games.


def test_every_game_has_an_hourly_arena_on_every_hour_of_thirty_minutes_in_pairs() -> None:
    arenas = [a for a in upcoming(DAY, DAY_MS) if a.game == "sanibel" and a.kind == "hourly"]
    assert [arena.start_ms for arena in arenas] == [DAY + h * HOUR_MS for h in range(24)]
    assert {(a.length_ms, a.heat_size, a.conditions) for a in arenas} == {
        (30 * MINUTE_MS, 2, EntryConditions())
    }
    assert arenas[0].title == "Hourly Sanibel arena" and arenas[0].scheduled


def test_every_game_has_a_daily_arena_at_half_past_seven_of_an_hour_in_fours() -> None:
    daily = [arena for arena in upcoming(DAY, DAY_MS) if arena.kind == "daily"]
    assert sorted(arena.game for arena in daily) == sorted(GAMES)
    for arena in daily:
        assert arena.start_ms == DAY + 19 * HOUR_MS + 30 * MINUTE_MS
        assert (arena.length_ms, arena.heat_size) == (HOUR_MS, 4)
        assert arena.conditions == EntryConditions(min_rated_games=10)
    hourly = upcoming(DAY + 19 * HOUR_MS, HOUR_MS)
    assert all(a.end_ms <= daily[0].start_ms for a in hourly if a.kind == "hourly")


# 19. An arena's id: GAME-KIND-YYYYMMDDTHHMM, the same on every node; others refused.


def test_an_arenas_id_is_its_game_kind_and_start() -> None:
    first = upcoming(NOW, HOUR_MS)
    ids = {arena.id for arena in first}
    assert "sanibel-hourly-20261206T0400" in ids
    assert "mount_sunflower_easy-hourly-20261206T0500" in ids
    assert first == upcoming(NOW, HOUR_MS)  # computed alike anywhere, from the clock alone
    assert made().id == "sanibel-weekend-20261206T2000"


def test_an_arena_id_is_checked_and_anything_else_refused() -> None:
    assert check_arena_id("shady_lanes-daily-20261206T1930") == "shady_lanes-daily-20261206T1930"
    for bad in ("", "chess-hourly-20261206T0400", "sanibel-hourly-2026120T0400", "x" * 500):
        with pytest.raises(BadArena, match="not an arena id") as refused:
            check_arena_id(bad)
        assert refused.value.code == "bad_arena"


# 20. The calendar: arenas not over that start before the horizon, by start then id.


def test_the_calendar_holds_running_arenas_and_those_starting_before_the_horizon() -> None:
    arenas = upcoming(NOW, HOUR_MS + 52 * MINUTE_MS)  # to 05:59:01
    starts = {arena.start_ms for arena in arenas}
    assert starts == {DAY + 4 * HOUR_MS, DAY + 5 * HOUR_MS}  # 04:00 runs, 06:00 is too late
    assert len(arenas) == 2 * len(GAMES)
    assert DAY + 6 * HOUR_MS in {arena.start_ms for arena in upcoming(NOW, 2 * HOUR_MS)}


def test_an_arena_is_over_at_its_start_plus_its_length() -> None:
    at_end = upcoming(DAY + 4 * HOUR_MS + 30 * MINUTE_MS, 10 * MINUTE_MS)
    assert at_end == []
    just_before = upcoming(DAY + 4 * HOUR_MS + 30 * MINUTE_MS - 1, 10 * MINUTE_MS)
    assert len(just_before) == len(GAMES)


def test_the_calendar_is_ordered_by_start_then_id_with_the_operators_arenas() -> None:
    weekend = made(start_ms=DAY + 5 * HOUR_MS)
    arenas = upcoming(NOW, 2 * HOUR_MS, made=[weekend])
    assert weekend in arenas
    assert arenas == sorted(arenas, key=lambda arena: (arena.start_ms, arena.id))
    assert upcoming(NOW, HOUR_MS - 8 * MINUTE_MS, made=[weekend]) == upcoming(NOW, 0)


def test_a_horizon_beyond_seven_days_or_negative_is_refused() -> None:
    assert upcoming(NOW, 7 * DAY_MS)
    for horizon in (7 * DAY_MS + 1, -1):
        with pytest.raises(BadArena, match="0 to 7 days"):
            upcoming(NOW, horizon)


# 21. An operator's arena: game, key, title, start, length and heat size checked.


def test_an_operators_arena_is_a_record_of_the_calendars_shape() -> None:
    arena = made()
    assert (arena.game, arena.kind, arena.title, arena.heat_size) == (
        "sanibel",
        "weekend",
        "Weekend blitz",
        3,
    )
    assert arena.end_ms == DAY + 20 * HOUR_MS + 45 * MINUTE_MS and not arena.scheduled
    assert arena.as_dict()["conditions"] == {
        "rating_min": 1400,
        "rating_max": None,
        "min_rated_games": 0,
    }


def test_an_operators_arena_of_an_unknown_game_is_refused() -> None:
    with pytest.raises(BadGame) as refused:
        made(game="chess")
    assert refused.value.code == "unknown_game"


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"key": ""}, "key"),
        ({"key": "Week-end"}, "key"),
        ({"key": "x" * 17}, "key"),
        ({"key": "hourly"}, "not hourly or daily"),
        ({"title": "   "}, "title"),
        ({"title": "t" * 61}, "title"),
        ({"title": "tab\there"}, "printable"),
        ({"start_ms": DAY + 20 * HOUR_MS + 1}, "whole minute"),
        ({"start_ms": DAY + 4 * HOUR_MS + 8 * MINUTE_MS}, "at least a minute ahead"),
        ({"start_ms": DAY - HOUR_MS}, "at least a minute ahead"),
        ({"start_ms": DAY + 31 * DAY_MS}, "30 days ahead"),
        ({"length_ms": 4 * MINUTE_MS}, "5 minutes to 6 hours"),
        ({"length_ms": 6 * HOUR_MS + MINUTE_MS}, "5 minutes to 6 hours"),
        ({"length_ms": 30 * MINUTE_MS + 1}, "whole minutes"),
        ({"heat_size": 1}, "2 to 4"),
        ({"heat_size": 5}, "2 to 4"),
    ],
)
def test_an_operators_arena_out_of_its_limits_is_refused_with_a_sentence(
    changes: dict[str, Any], said: str
) -> None:
    with pytest.raises(BadArena, match=said) as refused:
        made(**changes)
    assert refused.value.code == "bad_arena"


def test_an_operators_arena_at_its_limits_is_made() -> None:
    assert made(key="a", title=" T ").title == "T"
    assert made(key="k" * 16, title="t" * 60).kind == "k" * 16
    assert made(start_ms=DAY + 4 * HOUR_MS + 9 * MINUTE_MS).start_ms > NOW + MINUTE_MS
    assert made(start_ms=DAY + 30 * DAY_MS).start_ms == DAY + 30 * DAY_MS
    assert made(length_ms=5 * MINUTE_MS).length_ms == 5 * MINUTE_MS
    assert made(length_ms=6 * HOUR_MS).length_ms == 6 * HOUR_MS
    assert {made(heat_size=size).heat_size for size in (2, 3, 4)} == {2, 3, 4}


# 22. Entry conditions: a band within 0..4000, low below high; 0..1000 rated games.


def test_entry_conditions_within_their_limits_are_kept() -> None:
    assert EntryConditions(0, 4000, 1000).as_dict() == {
        "rating_min": 0,
        "rating_max": 4000,
        "min_rated_games": 1000,
    }
    assert EntryConditions(rating_max=1800).rating_min is None


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"rating_min": -1}, "between 0 and 4000"),
        ({"rating_max": 4001}, "between 0 and 4000"),
        ({"rating_min": 1600, "rating_max": 1600}, "empty"),
        ({"rating_min": 1700, "rating_max": 1600}, "empty"),
        ({"min_rated_games": -1}, "between 0 and 1000"),
        ({"min_rated_games": 1001}, "between 0 and 1000"),
    ],
)
def test_entry_conditions_out_of_their_limits_are_refused(
    fields: dict[str, int], said: str
) -> None:
    with pytest.raises(BadArena, match=said) as refused:
        EntryConditions(**fields)  # type: ignore[arg-type]
    assert refused.value.code == "bad_arena"


# Properties of any calendar.


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 4_000_000_000_000), st.integers(0, 2 * DAY_MS))
def test_the_calendar_holds_exactly_the_arenas_not_over_starting_before_the_horizon(
    now: int, horizon: int
) -> None:
    arenas = upcoming(now, horizon)
    assert all(a.end_ms > now and a.start_ms < now + horizon for a in arenas)
    assert len({arena.id for arena in arenas}) == len(arenas)
    later = upcoming(now - 2 * HOUR_MS, horizon + 4 * HOUR_MS)  # a wider look
    missing = [a for a in later if a.end_ms > now and a.start_ms < now + horizon]
    assert missing == arenas
    for arena in arenas:
        assert check_arena_id(arena.id) == arena.id
        schedule = next(s for s in SCHEDULES[arena.game] if s.kind == arena.kind)
        assert (arena.start_ms - schedule.offset_ms) % schedule.every_ms == 0
