"""The ticker cuts its work fine: every tick a slice of the races and sessions, the spectator
feeds every few ticks, and each tick's length observed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from protocol.race import Now
from server.sessions import Sessions
from server.ticker import Ticker

TICKS = 20


async def ticks_of(
    on_visit: Callable[[dict[str, Any], str], None] | None = None, **options: Any
) -> dict[str, Any]:
    """Run a ticker (1 ms ticks) for ``TICKS`` ticks over five races and say what it did
    (``on_visit(races, race)`` may change the races as each is looked after)."""
    seen: dict[str, Any] = {"flushes": 0, "visits": [], "sessions": [], "lengths": []}
    rooms = {f"race{i}": SimpleNamespace(id=f"race{i}") for i in range(5)}
    enough = asyncio.Event()

    def observe(seconds: float) -> None:
        seen["lengths"].append(seconds)
        if len(seen["lengths"]) == TICKS:
            enough.set()

    def visit(race: str) -> None:
        seen["visits"].append(race)
        if on_visit is not None:
            on_visit(rooms, race)

    def flush(moment: Now) -> None:
        seen["flushes"] += 1

    ticker = Ticker(
        1,
        options.pop("slices"),
        flush,
        lambda: rooms,  # type: ignore[arg-type,return-value]
        lambda room, moment: visit(room.id),
        lambda: Now(0, 0),
        lambda moment, part, parts: seen["sessions"].append((part, parts)),
        observe=observe,
        **options,
    )
    task = asyncio.create_task(ticker.run())
    await asyncio.wait_for(enough.wait(), 10)
    task.cancel()
    return seen


async def test_each_race_is_looked_after_once_per_round_of_slices() -> None:
    seen = await ticks_of(slices=5, flush_every=5)
    assert sorted(seen["visits"]) == sorted([f"race{i}" for i in range(5)] * (TICKS // 5))
    assert seen["visits"][:5] == ["race1", "race2", "race3", "race4", "race0"]  # one a tick


async def test_a_race_let_go_mid_round_is_skipped_and_a_new_one_waits_for_the_next_round() -> None:
    def change(races: dict[str, Any], race: str) -> None:
        if race == "race1" and "race3" in races:  # the first tick's race
            del races["race3"]
            races["race9"] = SimpleNamespace(id="race9")

    visits = (await ticks_of(change, slices=5))["visits"]
    assert "race3" not in visits
    assert visits.count("race9") == 3  # from the second round on: ticks 9, 14, 19
    assert visits[:4] == ["race1", "race2", "race4", "race0"]  # tick 3's race is gone


async def test_the_sessions_are_looked_after_a_slice_a_tick() -> None:
    seen = await ticks_of(slices=4)
    assert seen["sessions"][:4] == [(1, 4), (2, 4), (3, 4), (0, 4)]
    assert len(seen["sessions"]) == TICKS


async def test_the_spectator_feeds_are_flushed_every_few_ticks_only() -> None:
    assert (await ticks_of(slices=5, flush_every=5))["flushes"] == TICKS // 5
    assert (await ticks_of(slices=5))["flushes"] == TICKS


async def test_every_tick_s_length_is_observed() -> None:
    lengths = (await ticks_of(slices=5))["lengths"]
    assert len(lengths) == TICKS
    assert all(0 <= length < 1 for length in lengths)


def test_the_sessions_are_listed_once_a_round_and_each_visited_once_in_it() -> None:
    visited: list[str] = []

    def a_session(player: str) -> Any:
        return SimpleNamespace(events=[], let_go_of_events=lambda mono_s: visited.append(player))

    sessions = Sessions(1000, lambda player: None)
    sessions.by_player = {f"p{i}": a_session(f"p{i}") for i in range(6)}
    sessions.let_go_of_events(0.0, 0, 3)
    sessions.by_player["late"] = a_session("late")
    sessions.let_go_of_events(0.0, 1, 3)
    sessions.let_go_of_events(0.0, 2, 3)
    assert sorted(visited) == [f"p{i}" for i in range(6)]  # "late" waits for the next round
    sessions.let_go_of_events(0.0, 0, 3)
    assert visited[6:] == ["p0", "p3", "late"]
