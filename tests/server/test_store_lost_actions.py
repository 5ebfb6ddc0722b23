"""Redis comes back with less than the server acknowledged (``appendfsync everysec`` and a
power loss, or a replica that lagged promoted). The node that acknowledged the actions
notices when it reads the race back: an ERROR log line, a metric, /healthz degraded while
such a race runs; each racer is told with a ``history_lost`` event carrying the race as the
store really holds it; the race goes on from there, never rated; an action acknowledged
before the loss and sent again is refused, not played as new; and no entry is stored above
the hole."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import time
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from harness import (
    SERVE_QUICKLY,
    health,
    member,
    player,
    racing_alone,
    running_server,
    url,
    winning_actions,
)
from prometheus_client.parser import text_string_to_metric_families
from redis_server import RedisServer, free_port
from serve_process import ServeProcess
from store_loss import store_keeps_only

from client.api import Client, ServerError
from protocol.daily import day_of
from protocol.race import LogEntry
from server.handover.jobs import AppendActions
from server.handover.moment import now
from server.store import LogGap, MemoryStore, Store, open_store

GAME, DEAL = "mount_sunflower", 18
EVERYSEC = ("--appendonly", "yes", "--appendfsync", "everysec")


def metric(port: int, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    found = [
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    ]
    return found[0] if found else 0.0


def roll_back(redis: RedisServer, older: Path) -> None:
    """Stop Redis, put back the append-only files copied earlier, start it on its port."""
    redis.stop()
    shutil.rmtree(redis.directory / "appendonlydir")
    shutil.copytree(older, redis.directory / "appendonlydir")
    redis.start()


async def lose_newest(store: Store, race: str, player: str, count: int) -> None:
    """The Redis ``store`` loses ``player``'s newest ``count`` log entries in ``race``."""
    redis = store._redis  # type: ignore[attr-defined]
    key = store._keys.log(race, player)  # type: ignore[attr-defined]
    newest = [entry_id for entry_id, _ in await redis.xrevrange(key, count=count)]
    await redis.xdel(key, *newest)


async def test_redis_back_with_fewer_actions_than_acknowledged_is_noticed_and_told(
    redis_server_factory: Callable[..., RedisServer],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="solrace")
    redis = redis_server_factory(*EVERYSEC)
    wins = winning_actions(GAME, DEAL)
    store = open_store(redis.url, prefix=f"lost-{uuid.uuid4().hex}:")
    async with running_server(store, countdown_ms=0) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        cy = await player(server, "Cy")
        await cy.spectate(race)
        for action in wins[:10]:
            await ann.act(race, action)
        for action in wins[:3]:
            await bob.act(race, action)
        await asyncio.sleep(1.2)  # everysec: these are on disk
        shutil.copytree(redis.directory / "appendonlydir", tmp_path / "older")
        for action in wins[10:20]:  # acknowledged, then lost
            await ann.act(race, action)
        roll_back(redis, tmp_path / "older")

        told = (await ann.next_event("history_lost", timeout=15)).data
        assert told["race"]["race"] == race and told["lost"] == 10
        assert told["race"]["you"]["seq"] == 10  # the race as the store holds it
        assert told["race"]["history_lost"] is True
        assert (await bob.next_event("history_lost")).data["lost"] == 0
        # spectators saw the lost actions: they watch again from what the store holds
        assert (await cy.next_event("watch_ended")).data["reason"] == "history_lost"
        watched = await cy.spectate(race)
        seen = [{k: v for k, v in p.items() if k != "view"} for p in watched["players"]]
        assert seen == told["race"]["players"]  # the standings Ann was told
        status = await asyncio.to_thread(health, server.port)
        assert status["status"] == "degraded" and status["history"] != "ok"
        assert await asyncio.to_thread(metric, server.port, "solrace_actions_lost_total") == 10
        assert any(
            r.levelno == logging.ERROR and "lost acknowledged actions" in r.getMessage()
            for r in caplog.records
        )

        with pytest.raises(ServerError) as refused:  # acknowledged before: not played anew
            await ann.act(race, wins[15], seq=16)
        assert refused.value.code == "history_lost"
        assert (await ann.snapshot(race))["you"]["seq"] == 10

        # on from the position the store holds, numbered by the client above the lost ones
        assert (await ann.act(race, wins[10]))["seq"] == 21
        await ann.resign(race)
        await bob.resign(race)
        result = (await ann.next_event("result")).data
        assert result["history_lost"] is True
        assert (await asyncio.to_thread(health, server.port))["status"] == "ok"
    reader = open_store(redis.url, prefix=store.prefix)  # type: ignore[attr-defined]
    try:
        logged = [(e.player, e.seq) for e in await reader.races.actions(race)]
        assert [seq for who, seq in logged if who == ann.player] == [*range(1, 11), 21]
    finally:
        await reader.close()


async def test_an_entry_decided_above_actions_the_store_lost_is_not_stored(
    redis_url: str,
) -> None:
    store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    try:
        first = AppendActions("r1", (LogEntry("ann", 1, "deal", 5),), fence=2)
        assert await store.write([first]) == [None]
        # decided on top of seq 3, which the store does not hold
        above = AppendActions("r1", (LogEntry("ann", 4, "deal", 9),), fence=2, after=3)
        [error] = await store.write([above])
        assert isinstance(error, LogGap)
        assert [e.seq for e in await store.races.actions("r1")] == [1]
        # decided on top of what it holds: stored
        next_one = AppendActions("r1", (LogEntry("ann", 5, "deal", 9),), fence=2, after=1)
        assert await store.write([next_one]) == [None]
        assert [e.seq for e in await store.races.actions("r1")] == [1, 5]
    finally:
        await store.purge()  # type: ignore[attr-defined]
        await store.close()


async def test_an_action_decided_on_actions_the_store_lost_is_refused_and_the_loss_told(
    redis_url: str,
) -> None:
    """The store loses a racer's last entries with no reconnect to tell the node (a
    replica promoted behind a proxy that kept the connections): the racer's next action
    is refused by the store, not stored above the hole, and the race read back."""
    wins = winning_actions(GAME, DEAL)
    store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    async with running_server(store, countdown_ms=0) as server:
        ann, race = await racing_alone(server, "Ann", wins[:10])
        await lose_newest(store, race, ann.player, 2)  # the store lost actions 9 and 10

        with pytest.raises(ServerError) as refused:
            await ann.act(race, wins[10])  # decided on top of action 10
        assert refused.value.code == "history_lost"
        told = (await ann.next_event("history_lost")).data
        assert told["lost"] == 2 and told["race"]["you"]["seq"] == 8
        assert server.races.actions_lost == 2
        # the record keeps it: a node rebuilding the race (a restart) knows what was lost
        again = await server.races.rebuild(race, now(), fresh=True)
        assert again is not None and again.race.racers[ann.player].lost_to == 11
        assert again.race.racers[ann.player].last_seq == 8 and again.race.history_lost
        assert (await ann.act(race, wins[8]))["seq"] == 12
        logged = await store.races.racer_log(race, ann.player)
        assert [entry.seq for entry in logged] == [*range(1, 9), 12]
        await ann.resign(race)
    await store.purge()  # type: ignore[attr-defined]


async def test_a_daily_run_whose_store_lost_actions_goes_on_no_board() -> None:
    wins = winning_actions(GAME, DEAL)
    store = MemoryStore()
    await store.days.set_daily_deal(GAME, day_of(int(time.time() * 1000)), DEAL)
    async with running_server(store) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        attempt = (await ann.daily_start(GAME))["race"]["race"]
        for action in wins[:10]:
            await ann.act(attempt, action)
        await store_keeps_only(server, ann.player, 6)
        assert (await ann.next_event("history_lost")).data["lost"] == 4
        for action in wins[6:]:  # Ann plays on from what the store holds, and wins
            await ann.act(attempt, action)
        result = (await ann.next_event("result")).data
        assert result["ranking"][0]["outcome"] == "finished" and result["history_lost"]
        await server.writer.drain(5)
        board = await bob.daily_board(GAME)
        assert board["total"] == 0 and (await bob.best_board(GAME))["total"] == 0


async def test_a_racer_who_resumes_on_a_node_that_saw_their_lost_actions_is_told(
    redis_url: str,
) -> None:
    """Bob's node followed the race and saw Ann's actions stored; the store then loses
    her last two, and she resumes on Bob's node: it reads her log back and tells her."""
    wins = winning_actions(GAME, DEAL)
    prefix = f"test:{uuid.uuid4().hex}:"
    stores = [open_store(redis_url, prefix=prefix) for _ in range(2)]
    async with running_server(stores[0]) as a, running_server(stores[1]) as b:
        ann, bob = await Client.connect(url(a), "Ann"), await Client.connect(url(b), "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in wins[:10]:
            await ann.act(race, action)
        for _ in range(100):  # node B applies Ann's stored actions
            if b.race_desk.rooms[race].race.racers[ann.player].last_seq == 10:
                break
            await asyncio.sleep(0.05)
        await lose_newest(stores[0], race, ann.player, 2)  # the store lost actions 9 and 10

        moved = Client(url(b), "Ann")
        moved.token, moved.last_event = ann.token, ann.last_event
        await moved.reconnect()
        told = (await moved.next_event("history_lost")).data
        assert told["lost"] == 2 and told["race"]["you"]["seq"] == 8
        assert b.races.actions_lost == 2
        await moved.close()
        await bob.close()
    await stores[0].purge()  # type: ignore[attr-defined]
    for store in stores:
        await store.close()


async def test_a_race_redis_lost_whole_is_written_again_and_stays_as_it_was(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    """Redis restarts with nothing (no persistence): the node still holds every action it
    acknowledged, so it writes the race again; nothing was lost, nothing is marked."""
    redis = redis_server_factory()
    wins = winning_actions(GAME, DEAL)
    store = open_store(redis.url, prefix="empty:")
    async with running_server(store, countdown_ms=0) as server:
        ann, race = await racing_alone(server, "Ann", wins[:10])
        redis.kill()
        redis.start()  # empty
        for _ in range(100):
            try:
                await ann.act(race, wins[10])
                break
            except ServerError as error:  # refused while the race is written again
                assert error.code in ("store_unavailable", "history_lost")
                await asyncio.sleep(0.1)
        await server.writer.drain(5)
        logged = await store.races.racer_log(race, ann.player)
        assert [e.action for e in logged] == wins[:11]
        assert not server.races.rooms[race].race.history_lost
        assert (await asyncio.to_thread(health, server.port))["status"] == "ok"
        await ann.resign(race)


async def test_a_solrace_serve_node_says_so_when_redis_comes_back_with_less(
    redis_server_factory: Callable[..., RedisServer], tmp_path: Path
) -> None:
    """The reporter's run: a real ``solrace serve`` on a Redis with ``appendfsync
    everysec``, the append-only files put back one second's worth before Redis restarts."""
    redis = redis_server_factory(*EVERYSEC)
    wins = winning_actions(GAME, DEAL)
    args = ("--redis", redis.url, "--countdown-ms", "0", *SERVE_QUICKLY)
    with ServeProcess(free_port(), tmp_path / "node", *args) as node:
        await asyncio.to_thread(node.start)
        ann, bob = await Client.connect(node.url, "Ann"), await Client.connect(node.url, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in wins[:5]:
            await ann.act(race, action)
        await asyncio.sleep(1.2)  # everysec: these are on disk
        shutil.copytree(redis.directory / "appendonlydir", tmp_path / "older")
        for action in wins[5:12]:
            await ann.act(race, action)
        roll_back(redis, tmp_path / "older")

        told = (await ann.next_event("history_lost", timeout=15)).data
        assert told["lost"] == 7 and told["race"]["you"]["seq"] == 5
        status, body = await asyncio.to_thread(node.get, "/healthz")
        assert status == 503 and json.loads(body)["history"] == "lost in 1 live race(s)"
        _, metrics = await asyncio.to_thread(node.get, "/metrics")
        assert "solrace_actions_lost_total 7.0" in metrics.decode()
        [said] = [line for line in node.log() if line["level"] == "error"]
        assert said["msg"].startswith("the store lost acknowledged actions")
        assert said["race"] == race and said["lost"][ann.player] == {"actions": 7, "last_seq": 12}
        for client in (ann, bob):
            await client.close()
