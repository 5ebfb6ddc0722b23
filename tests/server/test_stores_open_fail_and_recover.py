"""The store contract, choosing and losing the backend: every store answers, a Redis store
refuses in time while Redis is away and recovers after, and bounds every key it writes."""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from collections.abc import Callable

import pytest
from redis_server import RedisServer, free_port
from store_contract import DAY, EPOCH_MS, GAME, a_record, a_run, players, record, save

from protocol.race import LogEntry
from server.handover.jobs import AppendActions, EndRace, RecordDaily, SaveIdentity
from server.store import Account, MemoryStore, Store, StoreUnavailable, open_store
from server.store.redis_store import RedisStore


def fresh_prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"


async def test_a_working_store_answers_ping(store: Store) -> None:
    assert await store.ping() is True


async def test_a_burst_of_more_calls_than_the_store_has_connections_is_served_whole(
    store: Store,
) -> None:
    await store.days.set_daily_deal(GAME, DAY, 7)
    deals = await asyncio.gather(*(store.days.daily_deal(GAME, DAY) for _ in range(500)))
    assert deals == [7] * 500  # none refused: a call waits for a free connection


# choosing and losing the backend


async def test_open_store_picks_memory_without_a_url_and_redis_with_one() -> None:
    assert isinstance(open_store(None), MemoryStore)
    assert isinstance(open_store(""), MemoryStore)
    redis_store = open_store("redis://127.0.0.1:1/0")
    assert isinstance(redis_store, RedisStore)
    await redis_store.close()


async def test_an_unreachable_redis_raises_store_unavailable_without_the_password() -> None:
    url = f"redis://user:s3cret@127.0.0.1:{free_port()}/0"
    redis_store = RedisStore(url, prefix=fresh_prefix())
    with pytest.raises(StoreUnavailable, match="cannot be reached") as raised:
        await redis_store.races.load_race("r1")
    assert "s3cret" not in str(raised.value)
    assert await redis_store.ping() is False
    await redis_store.close()


async def test_a_redis_that_never_answers_raises_store_unavailable_by_the_deadline() -> None:
    with socket.socket() as silent:  # accepts connections (the backlog does), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        redis_store = RedisStore(url, prefix=fresh_prefix(), deadline=0.5)
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="cannot be reached"):
            await redis_store.races.load_result("r1")
        assert time.monotonic() - started < 1.5
        await redis_store.close()


async def test_a_batch_to_a_redis_that_never_answers_is_refused_by_the_deadline() -> None:
    """The writer's batch (its own connection, no redis-py timeout): every job gets
    StoreUnavailable within about the deadline, and the next batch too."""
    with socket.socket() as silent:  # accepts connections (the backlog does), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        redis_store = RedisStore(url, prefix=fresh_prefix(), deadline=0.5)
        job = AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))
        for _ in range(2):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable, match="cannot be reached"):
                await redis_store.write([job, job])
            assert 0.4 < time.monotonic() - started < 1.5
        await redis_store.close()


async def test_the_redis_store_fails_fast_while_redis_is_down_and_recovers_after(
    redis_server_factory: Callable[[], RedisServer],
) -> None:
    server = redis_server_factory()
    redis_store = RedisStore(server.url, prefix=fresh_prefix())
    assert await redis_store.days.claim_daily(GAME, DAY, "ann", "a1")
    server.kill()

    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match=f"127.0.0.1:{server.port}"):
        await redis_store.days.claim_daily(GAME, DAY, "bob", "b1")
    assert time.monotonic() - started < 5

    server.start()  # the same port; its data is gone (no persistence) and so are its scripts
    assert await redis_store.ping() is True
    assert await redis_store.days.claim_daily(GAME, DAY, "bob", "b1") is True
    assert await record(redis_store, a_run("cat"))
    assert players((await redis_store.days.daily_board(GAME, DAY, top=5)).top) == ["cat"]
    await redis_store.close()


async def test_recording_a_daily_run_on_redis_is_one_atomic_script_call(redis_url: str) -> None:
    store = RedisStore(redis_url, prefix=fresh_prefix())
    run = a_run("ann")
    await store.days.record_daily(GAME, "2024-04-30", a_run("bob"))  # Redis has the script loaded
    await store.days.claim_daily(GAME, DAY, "ann", run.race)
    calls = await script_calls(store)
    assert await store.days.record_daily(GAME, DAY, run)
    assert await script_calls(store) == calls + 1  # the day's board and the all-time one
    assert "ann" in players((await store.days.best_board(GAME, 10)).top)
    await store.purge()
    await store.close()


async def script_calls(store: RedisStore) -> int:
    stats = await store._redis.info("commandstats")
    return sum(stats.get(f"cmdstat_{name}", {}).get("calls", 0) for name in ("evalsha", "eval"))


async def test_every_redis_key_expires_or_has_an_owner_that_removes_it(redis_url: str) -> None:
    store = RedisStore(redis_url, prefix=fresh_prefix())
    run = a_run("ann")
    await store.days.set_daily_deal(GAME, DAY, 7)
    await store.days.claim_daily(GAME, DAY, "ann", run.race)
    await store.days.record_daily(GAME, DAY, run)
    await store.daily_secret("s")
    record = a_record("r1", "ann")
    entries = (LogEntry("ann", 1, "deal", 5),)
    await store.write([SaveIdentity("h", "ann", "Ann", keep_s=100)])
    await store.accounts.create_account(Account("ann", "Ann", "$argon2id$..."))
    await store.write([SaveIdentity("h2", "ann", "Ann", keep_s=100, account="Ann")])
    await store.limits.count_attempt("sign_in:127.0.0.1", 600)
    await store.limits.note_failure("user:ann", 900)
    await store.accounts.rate_race(GAME, "r0", [a_run("ann"), a_run("bob")], EPOCH_MS, 60)
    entry = {"player": "ann", "name": "Ann", "rating": 1500.0, "joined_ms": 0, "account": True}
    await store.pairing.join_pool(GAME, entry)
    await save(store, "r1", "ann")
    await store.write([AppendActions("r1", entries)])
    await store.bus.next_event_generation("ann")
    await store.bus.claim_lease("timers", "node", 10_000)
    await store.bus.node_alive("node", 10_000)
    await store.bus.take_player("ann", "node")
    live = {  # owned: removed when the race ends (EndRace), or kept on purpose, bounded
        "races:live",
        "nodes",
        "node:node:players",
        "player:{ann}:races",
        "race:{r1}:race",
        "race:{r1}:racers",
        "race:{r1}:log:ann",
        "best:{sanibel}:board",
        "best:{sanibel}:members",
        "best:{sanibel}:runs",
        "daily-secret",
        "account:ann",  # the accounts: kept for good, as accounts are
        "lookalike:ann",  # an account's look-alike claim: kept as its account is
        "player:{ann}:account",
        "rating:{sanibel}:ann",  # ratings: kept for good, as accounts are
        "rating:{sanibel}:bob",
        "rating:{sanibel}:ann:history",  # kept as the rating is, at most RATINGS_KEPT long
        "rating:{sanibel}:bob:history",
        "pool:{quick}:sanibel",  # owned: entries leave when paired, cancelled or gone
    }
    async for key in store._redis.scan_iter(match=store.prefix + "*"):
        name = key.removeprefix(store.prefix)
        ttl = await store._redis.ttl(key)
        assert ttl > 0 or name in live, f"{name} neither expires nor has an owner"
    await store.write([EndRace("r1", record, {"race": "r1"}, keep_s=60)])
    for part in ("race", "racers", "log:ann", "result"):
        assert await store._redis.ttl(f"{store.prefix}race:{{r1}}:{part}") > 0
    assert not await store._redis.exists(f"{store.prefix}player:{{ann}}:races")
    await store.purge()
    await store.close()


async def test_a_redis_that_forgot_the_scripts_still_takes_a_batch(redis_url: str) -> None:
    store = RedisStore(redis_url, prefix=fresh_prefix())
    run = a_run("ann")
    await store.days.claim_daily(GAME, DAY, "ann", run.race)
    await store._redis.script_flush()  # as after a restart of Redis
    assert await store.write([RecordDaily(GAME, DAY, run)]) == [None]
    assert players((await store.days.daily_board(GAME, DAY, 10)).top) == ["ann"]
    await store.purge()
    await store.close()
