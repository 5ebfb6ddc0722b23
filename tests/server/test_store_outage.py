"""Redis goes away mid-race: races go on, health says degraded, and every result and action
log entry lands once Redis is back. No result is ever lost."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable

from harness import player, running_server, winning_actions
from redis_server import RedisServer

from server.store import open_store

GAME, DEAL = "mount_sunflower", 18


def health(port: int) -> dict[str, object]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            return json.loads(answer.read())  # type: ignore[no-any-return]
    except urllib.error.HTTPError as error:
        return json.loads(error.read())  # type: ignore[no-any-return]


async def test_results_written_while_redis_is_down_land_when_it_is_back(
    redis_server_factory: Callable[[], RedisServer],
) -> None:
    redis = redis_server_factory()
    wins = winning_actions(GAME, DEAL)
    store = open_store(redis.url, prefix="outage:")
    async with running_server(store, countdown_ms=0) as server:
        ann = await player(server, "Ann")
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        for action in wins[:50]:
            await ann.act(race, action)
        redis.kill()
        for action in wins[50:]:  # the race goes on without the store
            reply = await ann.act(race, action)
        assert reply["outcome"] == "finished"
        await ann.next_event("result")
        status = await asyncio.to_thread(health, server.port)
        assert status["status"] == "degraded" and status["store"] == "unavailable"
        assert server.persister.backlog > 0
        redis.start()  # same port, empty: everything must be written again from memory
        for _ in range(200):
            if server.persister.backlog == 0:
                break
            await asyncio.sleep(0.05)
        assert server.persister.backlog == 0
        assert (await asyncio.to_thread(health, server.port))["status"] == "ok"
        await ann.close()
    reader = open_store(redis.url, prefix="outage:")
    try:
        result = await reader.load_result(race)
        assert result is not None and result["ranking"][0]["outcome"] == "finished"
        logged = [entry.action for entry in await reader.actions(race)]
        # This test's Redis keeps nothing on disk, so what it held before the crash is
        # gone; everything played while it was down must be there, in order.
        assert len(logged) >= len(wins) - 50 and logged == wins[len(wins) - len(logged) :]
    finally:
        await reader.close()
