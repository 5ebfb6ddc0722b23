"""What the arenas store's tests share (tests/server/test_arena_store*.py): an arena record,
a heat started, a heat's result, an arena some players joined, and a limit lowered."""

from __future__ import annotations

import pytest

from protocol.arena import HeatResult, Racer
from server.store import Store
from server.store.arena_records import ArenaPlace, ArenaRecord, HeatStart

GAME = "sanibel"
STARTS_MS = 4_000_000_000_000  # in 2096: the keys' expiry, after the end, is ahead
LENGTH_MS = 30 * 60_000
LEASE_MS = 1000  # long enough that a busy machine does not lapse it between two calls


def an_arena(arena: str = "a1", **changes: object) -> ArenaRecord:
    fields: dict[str, object] = {
        "arena": arena,
        "game": GAME,
        "starts_at_ms": STARTS_MS,
        "length_ms": LENGTH_MS,
        "heat_size": 2,
        "conditions": {"min_rated_games": 10, "rating_band": [1200, 1800]},
        "made_by": "calendar",
    }
    return ArenaRecord(**{**fields, **changes})  # type: ignore[arg-type]


def a_heat(heat: str, *racers: str, wave: int = 1) -> HeatStart:
    return HeatStart(heat, wave, 12_345_678_901_234_567_890, racers, STARTS_MS + wave)


def a_result(heat: str, *racers: str, held: bool = False) -> HeatResult:
    """The heat's racers placed in the order given, the first two finishing."""
    placed = tuple(
        Racer(player, place, place <= 2, 60_000 + place, 100)
        for place, player in enumerate(racers, 1)
    )
    return HeatResult(heat, placed, held)


async def an_arena_with(store: Store, *players: str, arena: str = "a1") -> int:
    """An arena the players joined, its lease taken by node-a: the lease's token."""
    assert await store.arenas.create_arena(an_arena(arena))
    for player in players:
        await store.arenas.join(arena, player, STARTS_MS)
    token = await store.arenas.take_lease(arena, "node-a", 10_000)
    assert token is not None
    return token


def lower(monkeypatch: pytest.MonkeyPatch, limit: str, value: int) -> None:
    """Lower one of the arenas' limits in both stores, for a test of what happens at it."""
    for module in ("memory_arenas", "redis_arenas"):
        monkeypatch.setattr(f"server.store.{module}.{limit}", value)


def a_place(arena: str, place: int, ended_ms: int = STARTS_MS) -> ArenaPlace:
    return ArenaPlace(arena, GAME, place, 40, 50 - place, ended_ms)
