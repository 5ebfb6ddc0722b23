"""A heat is scored as its race ends (docs/arenas.md, "Playing an arena" 4): the node the
race ended on, the one holding its first racer's session, appends the heat's result to the
arena's log once the race's end is written, without waiting for the pairer's next tick;
and a heat over that nobody scored so (its node died, or the scoring failed) is scored by
the pairer once it has been over ``SCORED_AT_END_MS``. A real server on both stores, a
trial arena of an hour."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from arena_server import entered
from harness import member, running_server

from client.api import Client
from protocol.arena import HeatResult
from protocol.race import Now, Race
from server.app import RaceServer
from server.desks.arena_known import SCORED_AT_END_MS
from server.handover.effects import Effects
from server.store import Store, StoreError

HOUR_MS = 3_600_000


def arena_server(store: Store, **changes: Any) -> AbstractAsyncContextManager[RaceServer]:
    """A server running a trial arena of an hour (with ``changes`` to its settings)."""
    return running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2, **changes)


@pytest.fixture
async def server(store: Store) -> AsyncIterator[RaceServer]:
    async with arena_server(store) as running:
        yield running


def pairing_stopped(server: RaceServer) -> Callable[[Now], Awaitable[Effects]]:
    """The server's pairer ticks no more by itself: its tick, for the test to call."""
    tick = server.arenas.tick

    async def pairs_no_more(moment: Now) -> Effects:
        return []

    server.arenas.tick = pairs_no_more  # type: ignore[method-assign]
    return tick


async def one_heat(server: RaceServer) -> tuple[str, str, list[Client]]:
    """Ann and Bob in the running trial arena, paired in one heat: its arena and race."""
    ann, bob = [await member(server, name) for name in ("Ann", "Bob")]
    arena = await entered(server.store, ann)
    await bob.join_arena(arena)
    heat = (await ann.next_event("paired", timeout=15)).data["race"]["race"]
    await bob.next_event("paired", timeout=15)
    return arena, heat, [ann, bob]


async def results_of(store: Store, arena: str) -> list[str]:
    return [e.heat for e in await store.arenas.log(arena) if isinstance(e, HeatResult)]


async def scored_within(store: Store, arena: str, heat: str, seconds: float) -> bool:
    """Whether ``heat``'s result is in the arena's log within ``seconds``."""
    for _ in range(int(seconds * 20)):
        if heat in await results_of(store, arena):
            return True
        await asyncio.sleep(0.05)
    return heat in await results_of(store, arena)


async def resigned(racers: list[Client], heat: str) -> None:
    for client in racers:
        await client.next_event("started", timeout=15)
        await client.resign(heat)
    for client in racers:
        await client.next_event("result", timeout=15)


async def test_a_heat_is_scored_as_its_race_ends_without_waiting_for_the_pairer(
    server: RaceServer,
) -> None:
    arena, heat, racers = await one_heat(server)
    pairing_stopped(server)
    await resigned(racers, heat)
    assert await scored_within(server.store, arena, heat, 2.0)
    assert await results_of(server.store, arena) == [heat]  # once
    for client in racers:
        await client.close()


async def test_a_heat_its_node_did_not_score_is_scored_by_the_pairer_once_over_a_while(
    server: RaceServer,
) -> None:
    arena, heat, racers = await one_heat(server)

    async def fails(race: Race, moment: Now) -> Effects:
        raise StoreError("the store did not answer")

    server.arenas.scorer.scored_at_end = fails  # type: ignore[method-assign]
    await resigned(racers, heat)
    ended = time.monotonic()
    assert await scored_within(server.store, arena, heat, SCORED_AT_END_MS / 1000 + 5.0)
    assert time.monotonic() - ended >= SCORED_AT_END_MS / 1000 - 1.0  # it waited for the node
    assert await results_of(server.store, arena) == [heat]
    for client in racers:
        await client.close()


async def test_racers_back_from_a_heat_scored_elsewhere_breathe_from_its_end_not_from_its_reading(
    store: Store,
) -> None:
    async with arena_server(store, arena_repeat_after_ms=0) as server:
        arena, heat, racers = await one_heat(server)
        tick = pairing_stopped(server)
        await resigned(racers, heat)
        assert await scored_within(server.store, arena, heat, 2.0)  # by the racers' node
        record = await server.store.races.load_race(heat)
        assert record is not None
        ended_ms = max(racer["done_at"] for racer in record["racers"])
        # the pairer first reads the result a breather after the heat's end: its racers
        # have had their breather, and are paired again at once (alone, they meet again)
        server.executor.run(await tick(Now(int(time.monotonic() * 1000), ended_ms + 3_000)))
        again = [(await c.next_event("paired", timeout=5)).data["race"]["race"] for c in racers]
        assert again[0] == again[1] != heat
        for client in racers:
            await client.close()
