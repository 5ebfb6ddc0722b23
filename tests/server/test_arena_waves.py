"""A pairing wave's heats stand alone (docs/arenas.md, "Playing an arena" 3): a heat that
cannot open takes nothing from the other heats of its wave, whose racers are told
``paired`` as always, and a heat whose result cannot be read takes nothing from the heats
scored in the same tick (it is scored on a later one); a heat that cannot open strands
nobody: what it made is undone (its half-made race left by the racers in it, so it
closes; the heat taken back), and its racers are paired again in the next wave. The
failures are real ones: the store refuses a key (Redis holds it as another type than the
store's, so using it fails with ``WRONGTYPE``): a racer's account name, which the heat
reads before its race is opened, or their list of races, which the race's first write
updates; or a heat's race record; or Redis does the heat's start but its answer is lost
(a proxy holds it back past the store's deadline), and the same on the memory store (its
``start_heat`` does the start, then fails). A real server on a real Redis (the memory
store's test aside), a trial arena of an hour."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlparse

import pytest
import redis.asyncio as redis
from arena_server import DEAD_NODE, dead_node_s_lease, entered
from harness import member, running_server
from redis_tripwire import Tripwire

from client.api import Client
from protocol.arena import HeatResult
from protocol.race import Now
from server.desks.arena_known import SCORED_AT_END_MS
from server.desks.arena_scoring import LOST_HEAT_MS
from server.store import MemoryStore, StoreError
from server.store.arena_records import HeatStart
from server.store.redis_arenas import START_HEAT
from server.store.redis_store import RedisStore

HOUR_MS = 3_600_000
GAME = "sanibel"


@pytest.fixture
def store(redis_store: RedisStore) -> RedisStore:
    """Redis alone: these tests reach into Redis itself."""
    return redis_store


@asynccontextmanager
async def refused(
    redis_url: str, store: RedisStore, part: str, *players: str
) -> AsyncIterator[None]:
    """While it lasts the store fails every use of the ``part`` key of each of ``players``
    (it holds a hash, not what the store keeps there); then the key is as it was."""
    keys = [f"{store.prefix}player:{{{player}}}:{part}" for player in players]
    async with refused_keys(redis_url, keys, "hash"):
        yield


@asynccontextmanager
async def refused_keys(redis_url: str, keys: list[str], kind: str) -> AsyncIterator[None]:
    """While it lasts each of ``keys`` holds a value of ``kind`` (``hash`` or ``string``)
    the store does not keep there, so every use of it fails; then it is as it was."""
    client = redis.from_url(redis_url)
    kept = [await client.dump(key) for key in keys]
    try:
        for key in keys:
            await client.delete(key)
            if kind == "hash":
                await client.hset(key, "refused", "1")
            else:
                await client.set(key, "refused")
        yield
    finally:
        for key, value in zip(keys, kept, strict=True):
            await client.delete(key)
            if value is not None:
                await client.restore(key, 0, value)
        await client.aclose()


async def logged(caplog: pytest.LogCaptureFixture, text: str, tries: int = 200) -> bool:
    """Whether ``text`` is logged within ``tries`` twentieths of a second."""
    for _ in range(tries):
        if text in caplog.text:
            return True
        await asyncio.sleep(0.05)
    return text in caplog.text


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
        arena = await entered(store, ann)
        assert bob.player is not None
        async with refused(redis_url, store, "account", bob.player):  # Bob's heat cannot open
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


@pytest.mark.parametrize(
    "part", ["account", "races"], ids=["before-its-race-opened", "its-race-half-made"]
)
async def test_the_racers_of_a_heat_that_could_not_open_are_paired_in_the_next_wave(
    redis_url: str, store: RedisStore, part: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
        ann, bob = [await member(server, name) for name in ("Ann", "Bob")]
        assert ann.player is not None and bob.player is not None
        arena = await entered(store, ann)
        async with refused(redis_url, store, part, ann.player, bob.player):
            await store.arenas.join(arena, bob.player, int(time.time() * 1000))
            # their heat cannot open, wave after wave
            assert await logged(caplog, "an arena heat could not open")
        told = await first_paired([ann, bob], 2)
        assert len(told) == 2 and told[ann.player] == told[bob.player]
        heat = told[ann.player]["race"]
        assert [h.heat for h in await store.arenas.heats(arena)] == [heat]  # the others undone
        assert await store.races.listed_races("live") == [heat]  # no half-made race left
        assert await store.races.listed_races("open") == []
        assert await store.arenas.log(arena) == []  # nothing counted for a heat not raced
        for client in (ann, bob):
            await client.close()


async def test_a_heat_whose_result_cannot_be_read_takes_nothing_from_the_heats_scored_beside_it(
    redis_url: str, store: RedisStore
) -> None:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
        ann = await member(server, "Ann")
        arena = await entered(store, ann)
        now_ms = int(time.time() * 1000)
        for racer in ("p1", "p2", "p3", "p4"):  # paused at once: the server never pairs them
            await store.arenas.join(arena, racer, now_ms)
            await store.arenas.change(arena, racer, "pause", now_ms)
        token = await dead_node_s_lease(store, arena, server.arenas.node)
        for heat in ("lost", "unreadable"):  # their node died before their races opened
            racers = ("p1", "p2") if heat == "lost" else ("p3", "p4")
            await store.arenas.start_heat(arena, HeatStart(heat, 1, 12345, racers, now_ms), token)
        await store.arenas.release_lease(arena, DEAD_NODE, token)  # the server pairs on
        monotonic_ms = int(time.monotonic() * 1000)
        seen_over = now_ms + LOST_HEAT_MS - SCORED_AT_END_MS  # the pairer knows them over
        await server.arenas.tick(Now(monotonic_ms, seen_over))
        unreadable = [f"{store.prefix}race:{{unreadable}}:race"]
        async with refused_keys(redis_url, unreadable, "string"):
            moment = Now(monotonic_ms, now_ms + LOST_HEAT_MS)
            await server.arenas.tick(moment)
        log = await store.arenas.log(arena)
        assert [entry.heat for entry in log if isinstance(entry, HeatResult)] == ["lost"]
        await server.arenas.tick(moment)  # the store answers again: it is scored now
        log = await store.arenas.log(arena)
        heats = [entry.heat for entry in log if isinstance(entry, HeatResult)]
        assert heats == ["lost", "unreadable"]
        await ann.close()


def sha(script: str) -> bytes:
    """How the store names ``script`` in its calls (EVALSHA)."""
    return hashlib.sha1(script.encode()).hexdigest().encode()


@pytest.mark.parametrize("undoing_fails", [False, True], ids=["undone", "undone-on-a-later-tick"])
async def test_a_heat_written_whose_answer_was_lost_is_undone_and_its_racers_paired_again(
    redis_url: str, undoing_fails: bool, caplog: pytest.LogCaptureFixture
) -> None:
    tripwire = await Tripwire(urlparse(redis_url).port or 6379).start()
    store = RedisStore(tripwire.url, prefix=f"waves-{uuid.uuid4().hex}:", deadline=2.0)
    direct = redis.from_url(redis_url)
    await direct.script_load(START_HEAT)  # so a heat's start is one EVALSHA, done at once
    try:
        async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
            ann, bob = [await member(server, name) for name in ("Ann", "Bob")]
            assert ann.player is not None and bob.player is not None
            arena = await entered(store, ann)
            tripwire.lose_answer(sha(START_HEAT), f"arena:{{{arena}}}:heats".encode())
            # undoing it fails at first: the log's index of entries refused
            index = [f"{store.prefix}arena:{{{arena}}}:logged"] if undoing_fails else []
            async with refused_keys(redis_url, index, "string"):
                await bob.join_arena(arena)
                await asyncio.wait_for(tripwire.tripped.wait(), 10)
                tries = 200 if undoing_fails else 0
                assert await logged(caplog, "was not undone", tries) == undoing_fails
            # the heat was written; its racers are paired again within seconds, not left
            # in it until it is scored as nobody finishing (``LOST_HEAT_MS``)
            told = await first_paired([ann, bob], 2)
            assert len(told) == 2 and told[ann.player] == told[bob.player]
            heat = told[ann.player]["race"]
            assert [h.heat for h in await store.arenas.heats(arena)] == [heat]
            assert await store.arenas.log(arena) == []  # nothing counted for it
            for client in (ann, bob):
                await client.close()
    finally:
        await store.purge()
        await store.close()
        await direct.aclose()
        await tripwire.close()


@pytest.mark.parametrize("undoing_fails", [False, True], ids=["undone", "undone-on-a-later-tick"])
async def test_a_heat_written_whose_answer_was_lost_is_undone_alike_on_the_memory_store(
    undoing_fails: bool,
) -> None:
    store = MemoryStore()
    starting, taking_back = store.arenas.start_heat, store.arenas.take_back_heat
    lost: list[HeatStart] = []

    async def start_heat(arena: str, heat: HeatStart, token: int) -> bool:
        started = await starting(arena, heat, token)
        if not lost:  # the first heat's start is done, and its answer lost
            lost.append(heat)
            raise StoreError("the store's answer was lost")
        return started

    async def take_back_heat(arena: str, heat: str, token: int) -> bool:
        if undoing_fails and len(lost) == 1:  # the first undoing fails too
            lost.append(HeatStart(heat, 1, 1, ("-", "+"), 0))
            raise StoreError("the store did not answer")
        return await taking_back(arena, heat, token)

    store.arenas.start_heat = start_heat  # type: ignore[method-assign]
    store.arenas.take_back_heat = take_back_heat  # type: ignore[method-assign]
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
        ann, bob = [await member(server, name) for name in ("Ann", "Bob")]
        assert ann.player is not None and bob.player is not None
        arena = await entered(store, ann)
        await bob.join_arena(arena)
        told = await first_paired([ann, bob], 2)  # paired again, not left in the lost heat
        assert len(told) == 2 and told[ann.player] == told[bob.player]
        heat = told[ann.player]["race"]
        assert lost and lost[0].heat != heat
        assert len(lost) == (2 if undoing_fails else 1)
        assert [h.heat for h in await store.arenas.heats(arena)] == [heat]
        assert await store.arenas.log(arena) == []  # nothing counted for it
        for client in (ann, bob):
            await client.close()


async def one_wave_of_four(
    store: RedisStore, watched: str
) -> tuple[dict[str, dict[str, Any]], list[tuple[Any, ...]]]:
    """Four entrants paired in one wave of two heats, which the test's call runs (the
    server's own ticks stopped), the store's ``watched`` call noted meanwhile: what each
    was told, and the calls' arguments."""
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
        clients = [await member(server, name) for name in ("Ann", "Bob", "Cy", "Dee")]
        arena = await entered(store, clients[0])
        tick = server.arenas.tick
        part, name = watched.split(".")
        calling = getattr(getattr(store, part), name)
        calls: list[tuple[Any, ...]] = []

        async def pairs_no_more(moment: Now) -> list[Any]:
            return []

        async def call(*given: Any) -> Any:
            calls.append(given)
            return await calling(*given)

        server.arenas.tick = pairs_no_more  # type: ignore[method-assign]
        await asyncio.sleep(1.5)  # a tick under way when it was replaced is over
        for client in clients[1:]:
            await client.join_arena(arena)
        setattr(getattr(store, part), name, call)
        rested = int(time.time() * 1000)  # joining, they take no breather
        server.executor.run(await tick(Now(int(time.monotonic() * 1000), rested)))
        told = await first_paired(clients, 4)
        for client in clients:
            await client.close()
    assert len({race["race"] for race in told.values()}) == 2  # two heats of two
    return told, calls


async def test_a_wave_reads_its_racers_ratings_once_not_again_for_each_heat_s_badges(
    store: RedisStore,
) -> None:
    told, read = await one_wave_of_four(store, "accounts.ratings")
    assert all(p["rating"] == 1500 for race in told.values() for p in race["players"])
    assert len(read) == 1 and sorted(read[0][1]) == sorted(told)  # the wave's one read
