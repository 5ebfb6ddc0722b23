"""The ticker's work is cut fine: every tick a slice of the races, a few at a time with the
event loop free between, and of the sessions; each hold on the loop observed."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from protocol.race import Now
from server.carry.ticker import Ticker
from server.state.sessions import Sessions

TICKS = 20


async def ticks_of(
    on_visit: Callable[[dict[str, Any], str], None] | None = None, **options: Any
) -> dict[str, Any]:
    """Run a ticker (1 ms ticks) for ``TICKS`` ticks over five races and say what it did
    (``on_visit(races, race)`` may change the races as each is looked after)."""
    seen: dict[str, Any] = {"flushes": 0, "visits": [], "sessions": [], "holds": []}
    rooms = {f"race{i}": SimpleNamespace(id=f"race{i}") for i in range(5)}
    enough = asyncio.Event()

    def visit(race: str) -> None:
        seen["visits"].append(race)
        if on_visit is not None:
            on_visit(rooms, race)

    def flush(moment: Now) -> None:
        seen["flushes"] += 1

    def looked_after_sessions(moment: Now, part: int, parts: int) -> None:
        seen["sessions"].append((part, parts))
        if len(seen["sessions"]) == TICKS:
            enough.set()

    ticker = Ticker(
        1,
        options.pop("slices"),
        flush,
        lambda: rooms,  # type: ignore[arg-type,return-value]
        lambda room, moment: visit(room.id),
        lambda: Now(0, 0),
        looked_after_sessions,
        observe=seen["holds"].append,
        **options,
    )
    task = asyncio.create_task(ticker.run())
    await asyncio.wait_for(enough.wait(), 10)
    task.cancel()
    return seen


async def test_each_race_is_looked_after_once_per_round_of_slices() -> None:
    seen = await ticks_of(slices=5)
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


async def test_a_tick_lets_requests_in_between_a_few_races_and_observes_each_hold() -> None:
    order: list[str] = []

    def visit(races: dict[str, Any], race: str) -> None:
        order.append(race)
        if race == "race0":  # a request read while the tick looks after its races
            asyncio.get_running_loop().call_soon(order.append, "request")

    seen = await ticks_of(visit, slices=1, chunk=2)
    assert order[:6] == ["race0", "race1", "request", "race2", "race3", "race4"]
    assert len(seen["holds"]) == 3 * TICKS  # five races two at a time: three holds a tick
    assert all(0 <= hold < 1 for hold in seen["holds"])


async def test_the_sessions_are_looked_after_a_slice_a_tick_and_the_feeds_flushed_each_tick() -> (
    None
):
    seen = await ticks_of(slices=4)
    assert seen["sessions"][:4] == [(1, 4), (2, 4), (3, 4), (0, 4)]
    assert seen["flushes"] == TICKS


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


def test_while_serving_a_tick_s_worth_of_new_objects_starts_no_collection() -> None:
    """A young collection scans everything made since the last freeze (7 ms a time at
    10,000 objects, seen every second or two at 4,000 actions/s) while every request waits,
    and finds nothing: the server makes no cyclic garbage (``test_memory``). What a tick
    of a server beyond its saturation keeps (thousands of actions, dozens of objects each)
    starts none."""
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    ticker = Ticker(50, 1, lambda moment: None, dict, lambda room, moment: None, lambda: Now(0, 0))
    gc.freeze()  # as every tick does
    ticker.start_gc_policy()
    gc.callbacks.append(count)
    try:
        kept = [[i] for i in range(60_000)]  # like positions kept for undo
    finally:
        gc.callbacks.remove(count)
        ticker.stop_gc_policy()
    assert len(kept) == 60_000
    assert collections == []
