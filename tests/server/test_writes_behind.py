"""What is written behind an answer (a race's result, a daily run on the boards) is never
dropped when Redis fails just as it is written: it waits, in order, until Redis takes it;
a SIGTERM meanwhile spills it to the spill file and the next start writes it first; a
Redis at its memory limit refuses it until memory is freed. Real ``solrace serve``
processes, a real redis-server that a tripwire proxy kills (or fills) at the moment the
result is sent to it: the winning action is stored, its result is not."""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis as sync_redis
from harness import SERVE_QUICKLY, member, winning_actions
from racers import Racer
from redis_server import RedisServer, free_port
from redis_tripwire import Tripwire
from serve_process import ServeProcess
from websockets.exceptions import InvalidHandshake

from client.api import Client
from protocol.daily import DAY_MS, day_of
from server.store import Store, open_store

GAME, DEAL = "mount_sunflower", 18
DRAIN_S = 2  # how long SIGTERM waits for writes before spilling them
PERSISTENT = ("--appendonly", "yes", "--appendfsync", "always")
FAST = ("--countdown-ms", "100", "--rate", "10000", "--burst", "10000", *SERVE_QUICKLY)
FAST += ("--rank-new-accounts",)  # the tests register their accounts the same day


@dataclass
class Setup:
    redis: RedisServer
    tripwire: Tripwire
    server: ServeProcess
    prefix: str

    def store(self) -> Store:
        """A store straight on Redis (not through the tripwire)."""
        return open_store(self.redis.url, prefix=self.prefix)


@pytest.fixture
async def setup(
    redis_server_factory: Callable[..., RedisServer], tmp_path: Path
) -> AsyncIterator[Setup]:
    redis = redis_server_factory(*PERSISTENT)
    prefix = f"behind-{uuid.uuid4().hex}:"
    store = open_store(redis.url, prefix=prefix)
    now = int(time.time() * 1000)
    for day in {day_of(now), day_of(now + DAY_MS)}:  # the test may cross midnight
        await store.days.set_daily_deal(GAME, day, DEAL)
    await store.close()
    tripwire = await Tripwire(redis.port).start()
    args = ("--redis", tripwire.url, "--redis-prefix", prefix, "--drain-s", str(DRAIN_S), *FAST)
    with ServeProcess(free_port(), tmp_path, *args) as server:
        await asyncio.to_thread(server.start)
        yield Setup(redis, tripwire, server, prefix)
    await tripwire.close()


async def daily_run_whose_result_meets(
    setup: Setup, trouble: Callable[[], None]
) -> tuple[Client, str, int]:
    """Dee (an account) plays her daily attempt to the end; Redis gets into ``trouble``
    just as her result is sent to it. Her attempt, and her time (her last action's answer,
    stored); her result is not told while it is not stored."""
    dee = await member(setup.server.url, "Dee")
    attempt: str = (await dee.daily_start(GAME))["race"]["race"]
    wins = winning_actions(GAME, DEAL)
    racer = Racer(dee, attempt)
    await racer.play(wins[:-1])
    setup.tripwire.arm(f"race:{{{attempt}}}:result".encode(), b"\r\nSET\r\n", then=trouble)
    finished = await racer.play(wins[-1:])  # its log entry is stored: it is answered
    assert finished["outcome"] == "finished"
    await asyncio.wait_for(setup.tripwire.tripped.wait(), 5)
    return dee, attempt, finished["time_ms"]


async def not_told_before_stored(client: Client, kind: str = "result") -> None:
    """``client`` is told no ``kind`` event for 3 s (it is not stored)."""
    with pytest.raises(TimeoutError):
        await client.next_event(kind, timeout=3)


def healthz(server: ServeProcess) -> tuple[int, dict[str, object]]:
    status, body = server.get("/healthz")
    return status, json.loads(body)


async def stored(
    store: Store, attempt: str, player: str, seconds: float = 15
) -> tuple[dict[str, object], int]:
    """The attempt's result and the number of entries on today's board, once both are
    written."""
    deadline = time.monotonic() + seconds
    while True:
        result = await store.races.load_result(attempt)
        board = await store.days.daily_board(GAME, day_of(int(time.time() * 1000)), 10, player)
        if result is not None and board.me is not None:
            assert board.me.run.race == attempt
            best = await store.days.best_board(GAME, 10, player)
            assert best.me is not None and best.me.run.race == attempt
            return result, board.total
        assert time.monotonic() < deadline, "the result or the daily run was never stored"
        await asyncio.sleep(0.05)


async def test_a_result_and_daily_run_sent_as_redis_dies_are_stored_once_it_is_back(
    setup: Setup,
) -> None:
    dee, attempt, time_ms = await daily_run_whose_result_meets(setup, setup.redis.kill)
    status, health = await asyncio.to_thread(healthz, setup.server)
    assert status == 503 and health["status"] == "degraded"
    assert health["races"] == 1  # the race stays in memory until its end is in Redis
    await not_told_before_stored(dee)  # a while down: retried, never dropped, not told
    setup.redis.start()  # the same data (append-only file)
    told = (await dee.next_event("result", timeout=15)).data  # once stored
    assert told["ranking"][0]["time_ms"] == time_ms
    store = setup.store()
    try:
        result, entries = await stored(store, attempt, dee.player)
        assert result == told and entries == 1
    finally:
        await store.close()
    deadline = time.monotonic() + 5
    while (await asyncio.to_thread(healthz, setup.server))[1]["races"] != 0:
        assert time.monotonic() < deadline, "the finished race was never let go"
        await asyncio.sleep(0.05)
    await dee.close()


async def test_sigterm_while_redis_is_down_spills_the_result_and_the_next_start_stores_it(
    setup: Setup,
) -> None:
    dee, attempt, time_ms = await daily_run_whose_result_meets(setup, setup.redis.kill)
    assert await asyncio.to_thread(setup.server.terminate) == 0
    spill = setup.server.directory / "spill.jsonl"
    spilled = [json.loads(line) for line in spill.read_text().splitlines()]
    kinds = {job["job"]: job for job in spilled}
    assert kinds["end"]["race"] == attempt and "daily" in kinds  # the result and the run
    setup.redis.start()
    await asyncio.to_thread(setup.server.start)  # writes the spilled jobs first
    store = setup.store()
    try:
        result, entries = await stored(store, attempt, dee.player)
        assert result["ranking"][0]["time_ms"] == time_ms and entries == 1  # type: ignore[index]
    finally:
        await store.close()
    deadline = time.monotonic() + 5
    while spill.exists():  # removed once every spilled job is written
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    await dee.close()


async def test_while_sigterm_waits_for_writes_readyz_says_503_and_no_one_new_gets_in(
    setup: Setup,
) -> None:
    dee, _, _ = await daily_run_whose_result_meets(setup, setup.redis.kill)
    server = setup.server
    assert server.process is not None
    assert server.get("/readyz")[0] == 200
    server.process.send_signal(signal.SIGTERM)  # the drain waits for Redis (DRAIN_S)
    await dee.next_event("shutdown")  # the drain has begun
    status, body = await asyncio.to_thread(server.get, "/readyz")
    assert status == 503 and json.loads(body)["ready"] is False
    with pytest.raises((OSError, InvalidHandshake)):
        await Client.connect(server.url, "Late")
    assert await asyncio.to_thread(server.wait) == 0
    await dee.close()


async def test_a_result_refused_by_a_full_redis_is_stored_once_memory_is_freed(
    setup: Setup,
) -> None:
    admin = sync_redis.Redis(port=setup.redis.port)

    def full() -> None:
        admin.config_set("maxmemory-policy", "noeviction")
        admin.config_set("maxmemory", "1")  # below what it holds: every write refused

    dee, attempt, time_ms = await daily_run_whose_result_meets(setup, full)
    deadline = time.monotonic() + 10
    while (health := await asyncio.to_thread(healthz, setup.server))[0] != 503:
        assert time.monotonic() < deadline, "health never said degraded"
        await asyncio.sleep(0.05)
    assert health[1]["status"] == "degraded" and health[1]["writes"] != "ok"
    store = setup.store()
    try:
        assert await store.races.load_result(attempt) is None  # refused, not written
        await not_told_before_stored(dee)
        admin.config_set("maxmemory", "0")
        told = (await dee.next_event("result", timeout=15)).data  # once stored
        assert told["ranking"][0]["time_ms"] == time_ms
        result, entries = await stored(store, attempt, dee.player)
        assert result == told and entries == 1
    finally:
        await store.close()
        admin.close()
    deadline = time.monotonic() + 10
    while (health := await asyncio.to_thread(healthz, setup.server))[0] != 200:
        assert time.monotonic() < deadline, "health never came back"
        await asyncio.sleep(0.05)
    await dee.close()


async def test_a_head_to_head_result_spilled_at_sigterm_in_an_outage_is_stored_by_the_next_start(
    setup: Setup,
) -> None:
    wins = winning_actions(GAME, DEAL)
    ann = await Client.connect(setup.server.url, "Ann")
    bob = await Client.connect(setup.server.url, "Bob")
    race = (await ann.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    await ann.next_event("started")
    await Racer(bob, race).play(wins[:5])
    await bob.resign(race)
    racer = Racer(ann, race)
    await racer.play(wins[:-1])
    setup.tripwire.arm(f"race:{{{race}}}:result".encode(), b"\r\nSET\r\n", then=setup.redis.kill)
    assert (await racer.play(wins[-1:]))["outcome"] == "finished"
    await asyncio.wait_for(setup.tripwire.tripped.wait(), 5)
    await not_told_before_stored(bob)
    assert await asyncio.to_thread(setup.server.terminate) == 0
    spill = (setup.server.directory / "spill.jsonl").read_text()
    assert race in spill
    setup.redis.start()
    await asyncio.to_thread(setup.server.start)
    store = setup.store()
    try:
        deadline = time.monotonic() + 15
        while (result := await store.races.load_result(race)) is None:
            assert time.monotonic() < deadline, "the spilled result was never stored"
            await asyncio.sleep(0.05)
        assert [entry["player"] for entry in result["ranking"]] == [ann.player, bob.player]
        assert race not in await store.races.listed_races("live")
        for player in (ann.player, bob.player):
            assert race not in await store.races.player_races(player)
    finally:
        await store.close()
    for client in (ann, bob):
        await client.close()
