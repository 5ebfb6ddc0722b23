"""A pairing wave's heats stand alone (docs/arenas.md, "Playing an arena" 3): a heat that
cannot open takes nothing from the other heats of its wave, whose racers are told
``paired`` as always. The failure is a real one: the store refuses one racer's keys (their
account's name is kept under a key Redis holds as another type, so reading it fails with
``WRONGTYPE``), so that racer's heat fails each time it is opened. A real server on a
real Redis, a trial arena of an hour."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis
from harness import member, running_server

from client.api import Client
from server.store.redis_store import RedisStore

HOUR_MS = 3_600_000
GAME = "sanibel"


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisStore]:
    kept = RedisStore(redis_url, prefix=f"waves-{uuid.uuid4().hex}:")
    yield kept
    await kept.purge()
    await kept.close()


async def refuse_keys_of(redis_url: str, store: RedisStore, player: str) -> None:
    """From now on the store fails every read of ``player``'s account name (its key holds
    a hash, not a string)."""
    key = f"{store.prefix}player:{{{player}}}:account"
    client = redis.from_url(redis_url)
    try:
        await client.delete(key)
        await client.hset(key, "refused", "1")
    finally:
        await client.aclose()


async def running(store: RedisStore, arena: str) -> None:
    """The arena is running in the store (its entrants were checked again at its start)."""
    for _ in range(200):
        record = await store.arenas.arena(arena)
        if record is not None and record.status == "running":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"arena {arena} never ran")


async def paired(client: Client) -> tuple[str, dict[str, Any]]:
    """The client's player and the heat's race they are told they are paired in."""
    assert client.player is not None
    return client.player, (await client.next_event("paired", timeout=15)).data["race"]


async def first_paired(clients: list[Client], count: int) -> dict[str, dict[str, Any]]:
    """The first ``count`` of ``clients`` told ``paired``, each with their heat's race."""
    waits = [asyncio.ensure_future(paired(client)) for client in clients]
    told: dict[str, dict[str, Any]] = {}
    try:
        for next_told in asyncio.as_completed(waits):
            player, race = await next_told
            told[player] = race
            if len(told) == count:
                break
    finally:
        for wait in waits:
            wait.cancel()
    return told


async def test_a_heat_that_cannot_open_takes_nothing_from_the_other_heats_of_its_wave(
    redis_url: str, store: RedisStore
) -> None:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
        ann, bob, cy, dee = [await member(server, name) for name in ("Ann", "Bob", "Cy", "Dee")]
        arenas = await ann.list_arenas(GAME)
        arena = next(a["id"] for a in arenas if a["status"] == "running")
        await ann.join_arena(arena)  # the arena's record is made
        await running(store, arena)
        assert bob.player is not None
        await refuse_keys_of(redis_url, store, bob.player)  # Bob's heat cannot open
        now = int(time.time() * 1000)
        for client in (bob, cy, dee):  # at once: one wave pairs all four
            assert client.player is not None
            await store.arenas.join(arena, client.player, now)
        told = await first_paired([ann, cy, dee], 2)
        assert len(told) == 2
        heat, other = told.values()
        assert heat == other
        racers = {racer["player"] for racer in heat["players"]}
        assert racers == set(told) and bob.player not in racers
        for client in (ann, bob, cy, dee):
            await client.close()
