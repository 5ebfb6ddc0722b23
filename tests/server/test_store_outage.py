"""Redis goes away, or fills up, mid-race. An action is answered only once its log entry is
stored: while Redis cannot store it, the action is refused (``store_unavailable``) and not
played. Everything else a player was told (a resignation, a result) waits in order and
lands once Redis takes writes again; health says degraded meanwhile. Nothing acknowledged
is ever lost or doubled."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable

import pytest
from harness import player, running_server, winning_actions
from redis_server import RedisServer

from client.api import ServerError
from server.store import open_store

GAME, DEAL = "mount_sunflower", 18
PERSISTENT = ("--appendonly", "yes", "--appendfsync", "always")


def health(port: int) -> dict[str, object]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            return json.loads(answer.read())  # type: ignore[no-any-return]
    except urllib.error.HTTPError as error:
        return json.loads(error.read())  # type: ignore[no-any-return]


async def until(check: Callable[[], bool], seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("it never happened")


async def test_while_redis_is_down_actions_are_refused_and_results_land_once_it_is_back(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    redis = redis_server_factory(*PERSISTENT)
    wins = winning_actions(GAME, DEAL)
    store = open_store(redis.url, prefix="outage:")
    async with running_server(store, countdown_ms=0) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in wins[:50]:
            await ann.act(race, action)
        before = (await ann.snapshot(race))["you"]["view"]
        redis.kill()
        with pytest.raises(ServerError) as refused:
            await ann.act(race, wins[50])
        assert refused.value.code == "store_unavailable"
        assert (await ann.snapshot(race))["you"]["view"] == before  # not played
        status = await asyncio.to_thread(health, server.port)
        assert status["status"] == "degraded" and status["store"] == "unavailable"
        await bob.resign(race)  # told at once, written once Redis is back
        await ann.resign(race)
        result = (await ann.next_event("result")).data
        assert server.writer.backlog > 0
        redis.start()  # the same data (append-only file): the writes go on from there
        await until(lambda: server.writer.backlog == 0)
        assert (await asyncio.to_thread(health, server.port))["status"] == "ok"
    reader = open_store(redis.url, prefix="outage:")
    try:
        stored = await reader.load_result(race)
        assert stored is not None and stored["ranking"] == result["ranking"]
        assert [e.action for e in await reader.actions(race)] == wins[:50]
        assert await reader.live_races() == []
    finally:
        await reader.close()


async def test_a_redis_at_its_memory_limit_refuses_actions_and_keeps_results_until_it_has_room(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    redis = redis_server_factory("--maxmemory-policy", "noeviction")
    wins = winning_actions(GAME, DEAL)
    store = open_store(redis.url, prefix="full:")
    admin = open_store(redis.url, prefix="admin:")
    async with running_server(store, countdown_ms=0) as server:
        ann = await player(server, "Ann")
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        for action in wins[:20]:
            await ann.act(race, action)
        # Redis is full: its memory limit is below what it holds
        await admin._redis.config_set("maxmemory", "1")  # type: ignore[attr-defined]
        with pytest.raises(ServerError) as refused:
            await ann.act(race, wins[20])
        assert refused.value.code == "store_unavailable"
        await ann.resign(race)
        await ann.next_event("result")
        await until(lambda: server.writer.failures > 0)
        status = await asyncio.to_thread(health, server.port)
        assert status["status"] == "degraded" and status["writes"] != "ok"
        await admin._redis.config_set("maxmemory", "0")  # type: ignore[attr-defined]
        await until(lambda: server.writer.backlog == 0)
        stored = await server.store.load_result(race)
        assert stored is not None and stored["ranking"][0]["outcome"] == "resigned"
        assert [e.action for e in await server.store.actions(race)] == wins[:20]
    await admin.close()
