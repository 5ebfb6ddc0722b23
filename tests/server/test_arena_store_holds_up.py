"""Where arenas are kept (docs/arenas.md), how it holds up: a result acknowledged before
Redis is killed is there after its restart, every key expires, two nodes appending the same
results store each once, any interleaving of duplicate appends gives each entry once, and
both stores answer any writes alike (their log always scores)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from arena_store import a_heat, a_place, a_result, an_arena, an_arena_with
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis_server import RedisServer

from protocol.arena import Cleared, Entry, Removed, Withdrawn, standings
from server.store import MemoryStore, Store
from server.store.arena_records import (
    KEEP_ARENA_MS,
    ArenaRefused,
)
from server.store.arenas import PLACES_KEPT
from server.store.redis_store import RedisStore

# Redis only: what survives a crash, and every key's lifetime


async def test_a_result_acknowledged_before_redis_is_killed_is_there_after_its_restart(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    redis = redis_server_factory("--appendonly", "yes", "--appendfsync", "always")
    store = RedisStore(redis.url)
    token = await an_arena_with(store, "ann", "bob")
    await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    assert await store.arenas.append("a1", a_result("h1", "ann", "bob"))
    await store.arenas.change("a1", "bob", "pause", 9)
    redis.kill()  # kill -9, right after the acknowledgements
    await store.close()
    redis.start()
    store = RedisStore(redis.url)
    try:
        log = [a_result("h1", "ann", "bob"), Withdrawn("bob")]
        assert await store.arenas.log("a1") == log
        assert not await store.arenas.append("a1", a_result("h1", "ann", "bob"))  # still once
        assert await store.arenas.heats("a1") == [a_heat("h1", "ann", "bob")]
        assert [p.status for p in await store.arenas.participants("a1")] == ["active", "paused"]
        assert await store.arenas.take_lease("a1", "node-b", 1000) is None  # still held
    finally:
        await store.close()


async def test_every_arena_key_expires_after_the_arena_s_end_and_keep_time(redis_url: str) -> None:
    store = RedisStore(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    try:
        record = an_arena()
        await store.arenas.create_arena(record)
        await store.arenas.join("a1", "ann", 1)
        await store.arenas.join("a1", "bob", 1)
        token = await store.arenas.take_lease("a1", "node-a", 10_000)
        assert token is not None
        await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
        await store.arenas.append("a1", a_result("h1", "ann", "bob"))
        for number in range(PLACES_KEPT + 1):  # one line dropped: its best is kept apart
            await store.arenas.record_place("ann", a_place(f"p{number}", 1, number + 1), 3600)
        await store.arenas.create_arena(an_arena("a2", made_by="moderator"))  # listed too
        keys = [key async for key in store._redis.scan_iter(match=store.prefix + "*")]
        assert len(keys) == 13
        for key in keys:
            name = key.removeprefix(store.prefix)
            expires = await store._redis.pexpiretime(key)
            if name == "arena:{a1}:lease":
                assert 0 < await store._redis.pttl(key) <= 10_000
            elif name.startswith("player:"):
                assert 0 < await store._redis.ttl(key) <= 3600
            elif name.startswith("arena:{a2}:") or name == "arenas:made":
                assert expires == record.ends_at_ms + KEEP_ARENA_MS, name  # as a2's record
            else:
                assert expires == record.ends_at_ms + KEEP_ARENA_MS, name
    finally:
        await store.purge()
        await store.close()


async def test_two_nodes_appending_the_same_results_at_once_store_each_once(
    redis_url: str,
) -> None:
    prefix = f"test:{uuid.uuid4().hex}:"
    nodes = [RedisStore(redis_url, prefix=prefix) for _ in range(2)]
    try:
        players = [f"p{number}" for number in range(40)]
        token = await an_arena_with(nodes[0], *players)
        pairs = list(zip(players[::2], players[1::2], strict=True))
        for number, (first, second) in enumerate(pairs):
            await nodes[0].arenas.start_heat("a1", a_heat(f"h{number}", first, second), token)
        results = [a_result(f"h{n}", first, second) for n, (first, second) in enumerate(pairs)]
        answers = await asyncio.gather(
            *(node.arenas.append("a1", result) for result in results for node in nodes)
        )
        assert sum(answers) == len(results)  # each appended by one node, refused to the other
        log = await nodes[1].arenas.log("a1")
        assert sorted(log, key=lambda entry: str(entry)) == sorted(results, key=str)
        assert [line.points for line in standings(log)] == [2] * 20 + [1] * 20
    finally:
        await nodes[0].purge()
        for node in nodes:
            await node.close()


# the property: duplicates from two writers change nothing


HEATS = [("h1", "ann", "bob"), ("h2", "cat", "dan"), ("h3", "bob", "cat"), ("h4", "dan", "ann")]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    writers=st.lists(
        st.lists(st.sampled_from(range(len(HEATS))), min_size=1, max_size=8),
        min_size=2,
        max_size=2,
    ),
    turns=st.lists(st.booleans(), max_size=20),
)
async def test_any_interleaving_of_two_writers_duplicates_gives_each_entry_once(
    store: Store, writers: list[list[int]], turns: list[bool]
) -> None:
    arena = uuid.uuid4().hex[:12]
    token = await an_arena_with(store, "ann", "bob", "cat", "dan", arena=arena)
    for heat, *racers in HEATS:
        await store.arenas.start_heat(arena, a_heat(heat, *racers), token)
    queues = [list(writer) for writer in writers]
    appended: list[int] = []  # every append, in the order the two writers made them
    for turn in [*turns, *[False] * len(queues[0]), *[True] * len(queues[1])]:
        queue = queues[int(turn)]
        if queue:
            number = queue.pop(0)
            heat, *racers = HEATS[number]
            was_new = await store.arenas.append(arena, a_result(heat, *racers))
            assert was_new == (number not in appended)
            appended.append(number)
    once = [a_result(HEATS[n][0], *HEATS[n][1:]) for n in dict.fromkeys(appended)]
    log = await store.arenas.log(arena)
    assert log == once
    assert standings(log) == standings(once)


# the property: both stores answer any sequence of writes alike, and the log always scores

PLAYERS = ["ann", "bob", "cat", "dan"]
STARTS = [("h1", "ann", "bob"), ("h2", "cat", "dan"), ("h3", "ann", "cat")]
ENTRIES: list[Entry] = [
    a_result("h1", "ann", "bob"),
    a_result("h2", "dan", "cat", held=True),
    a_result("h3", "cat", "ann", held=True),
    Cleared("h2"),
    Cleared("h3"),
    Removed("bob"),
    a_result("h9", "ann", "bob"),  # never started
]
WRITES = st.lists(
    st.one_of(
        st.tuples(st.just("join"), st.sampled_from(PLAYERS)),
        st.tuples(st.sampled_from(["pause", "resume", "withdraw"]), st.sampled_from(PLAYERS)),
        st.tuples(st.just("start"), st.sampled_from(range(len(STARTS)))),
        st.tuples(st.just("append"), st.sampled_from(range(len(ENTRIES)))),
    ),
    max_size=30,
)


async def write_once(
    store: Store, arena: str, token: int, at_ms: int, write: tuple[str, Any]
) -> object:
    """What the store answers to one write: its value, or the code it refused with."""
    what, which = write
    try:
        if what == "join":
            return await store.arenas.join(arena, which, at_ms)
        if what == "start":
            heat, *racers = STARTS[which]
            return await store.arenas.start_heat(arena, a_heat(heat, *racers), token)
        if what == "append":
            return await store.arenas.append(arena, ENTRIES[which])
        return await store.arenas.change(arena, which, what, at_ms)
    except ArenaRefused as refused:
        return refused.code


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(writes=WRITES)
async def test_both_stores_answer_any_writes_alike_and_their_log_always_scores(
    redis_url: str, writes: list[tuple[str, Any]]
) -> None:
    arena = uuid.uuid4().hex[:12]
    stores: list[Store] = [MemoryStore(), RedisStore(redis_url, prefix=f"test:{arena}:")]
    try:
        tokens = []
        for store in stores:
            await store.arenas.create_arena(an_arena(arena))
            token = await store.arenas.take_lease(arena, "node-a", 10_000)
            assert token is not None
            tokens.append(token)
        for at_ms, write in enumerate(writes):
            answers = [
                await write_once(store, arena, token, at_ms, write)
                for store, token in zip(stores, tokens, strict=True)
            ]
            assert answers[0] == answers[1], write
        memory, redis = stores
        assert await memory.arenas.participants(arena) == await redis.arenas.participants(arena)
        assert await memory.arenas.heats(arena) == await redis.arenas.heats(arena)
        recorded = await memory.arenas.heats_from(arena, 0)
        assert recorded == await redis.arenas.heats_from(arena, 0)
        assert sorted(h.heat for h in recorded if h) == sorted(
            h.heat for h in await memory.arenas.heats(arena)
        )
        log = await memory.arenas.log(arena)
        assert log == await redis.arenas.log(arena)
        standings(log)  # never an ArenaLogError: the store keeps only logs that can be scored
    finally:
        await stores[1].purge()  # type: ignore[attr-defined]
        await stores[1].close()
