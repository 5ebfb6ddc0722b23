"""What an arena's tick reads (docs/arenas.md, "A tick's reads"): while the pairer holds
its lease under one token it keeps what it read (the heats, the log and its standings) and
reads only the log's new tail, so a tick's reads do not grow with the arena; under a new
token (another node may have paired meanwhile) it reads everything again, and what it reads
then counts (a heat that node started is scored). Every command Redis runs is watched
(``MONITOR``): a real server on a real Redis, a trial arena of an hour."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as redis
from arena_server import DEAD_NODE, dead_node_s_lease, entered
from harness import member, running_server

from protocol.arena import HeatResult
from server.desks.arena_known import SCORED_AT_END_MS
from server.store.arena_records import HeatStart
from server.store.redis_store import RedisStore

HOUR_MS = 3_600_000


@pytest.fixture
def store(redis_store: RedisStore) -> RedisStore:
    """Redis alone: these tests reach into Redis itself."""
    return redis_store


@asynccontextmanager
async def commands_run(redis_url: str) -> AsyncIterator[list[str]]:
    """Every command Redis runs while it lasts, as Redis says it (``MONITOR``)."""
    said: list[str] = []
    client = redis.from_url(redis_url)
    ready = asyncio.Event()

    async def listen() -> None:
        async with client.monitor() as monitor:
            ready.set()
            async for info in monitor.listen():
                said.append(info["command"])

    listening = asyncio.ensure_future(listen())
    await asyncio.wait_for(ready.wait(), 5)
    try:
        yield said
    finally:
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)
        await client.aclose()


async def test_a_tick_reads_only_the_log_s_tail_under_one_token_and_everything_under_a_new_one(
    redis_url: str, store: RedisStore
) -> None:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
        ann = await member(server, "Ann")
        arena = await entered(store, ann)
        heats = f"HVALS {store.prefix}arena:{{{arena}}}:heats"
        await asyncio.sleep(1.5)  # the pairer's first tick of it read everything
        async with commands_run(redis_url) as said:
            await asyncio.sleep(3.5)  # three ticks or more
        assert [c for c in said if c.startswith("EVALSHA")], "the pairer did not tick"
        assert [c for c in said if c == heats] == []  # the heats were not read again
        token = await dead_node_s_lease(store, arena, server.arenas.node)
        now_ms = int(time.time() * 1000)
        for racer in ("p1", "p2"):  # paused at once: the server never pairs them
            await store.arenas.join(arena, racer, now_ms)
            await store.arenas.change(arena, racer, "pause", now_ms)
        lost = HeatStart("lost", 1, 12345, ("p1", "p2"), now_ms - 120_000)  # its race never opened
        await store.arenas.start_heat(arena, lost, token)
        async with commands_run(redis_url) as said:
            await store.arenas.release_lease(arena, DEAD_NODE, token)
            for _ in range(100 + SCORED_AT_END_MS // 50):  # the server pairs again, under
                # a new token, and scores the heat once it has known it over a while
                results = [e for e in await store.arenas.log(arena) if isinstance(e, HeatResult)]
                if results:
                    break
                await asyncio.sleep(0.05)
        assert heats in said  # read again
        assert [result.heat for result in results] == ["lost"]  # scored as nobody finishing
        await ann.close()
