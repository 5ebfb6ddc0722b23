"""The server freezes long-lived objects for the garbage collector every tick, and a frozen
reference cycle is never collected: closed connections and ended sessions must therefore
leave no cycles behind, and neither must forgotten races, deals dealt (random deals: the
Mersenne Twister's) or players dropped after their grace period: only objects that
reference counting frees."""

from __future__ import annotations

import asyncio
import gc
import uuid

import pytest
from harness import player, running_server

from server.edge.client import Client
from server.state import sessions
from server.store.redis_store import RedisStore

SERVER_SIDE = ("server.", "protocol.", "pysol_cards.", "tenacity.")


async def test_closed_connections_ended_sessions_and_forgotten_races_leave_no_cycles() -> None:
    gc.unfreeze()  # what earlier tests in this process left frozen is not this test's
    gc.collect()
    settings = {"grace_ms": 100, "feed_interval_ms": 10, "done_race_keep_ms": 100}
    async with running_server(countdown_ms=0, **settings) as server:
        clients = [await player(server, f"p{i}") for i in range(20)]
        race = (await clients[0].create_race("sanibel"))["race"]  # a random deal: MT
        await clients[1].join_race(race)
        await clients[2].spectate(race)
        await clients[0].next_event("started")
        await clients[0].act(race, "deal")
        for racer in clients[:2]:
            await racer.resign(race)
        await asyncio.sleep(0.1)  # several ticks: everything so far is frozen
        for client in clients:
            await client.close()
        await asyncio.sleep(0.5)  # past the grace period and the finished race's keeping
        assert not server.sessions.by_player and not server.race_desk.rooms
        gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            kinds = {f"{type(t).__module__}.{type(t).__qualname__}" for t in gc.garbage}
            # the server's, and what it uses on its paths (the test's own clients' sockets
            # and transports are garbage too: they are not the server's)
            stuck = sorted(kind for kind in kinds if kind.startswith(SERVER_SIDE))
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert stuck == []


async def race_to_the_end(ann: Client, bob: Client, deals: tuple[int, ...]) -> list[str]:
    """Races of Ann and Bob on ``deals``, one after the other, each resigned by both."""
    ended = []
    for deal in deals:
        race = (await ann.create_race("sanibel", deal=deal))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        await ann.act(race, "deal")
        await bob.act(race, "deal")
        for racer in (ann, bob):
            await racer.resign(race)
        await ann.next_event("result")
        await ann.next_event("unrated")  # a race they chose: the last event it sends
        ended.append(race)
    return ended


async def test_finished_races_on_redis_leave_nothing_of_them_in_the_server(
    redis_url: str,
) -> None:
    """Issue 10: a finished race leaves process memory once its record is in Redis (the
    racers stay connected): the race desk, the relay and the store hold nothing of it."""
    store = RedisStore(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    try:
        async with running_server(store, countdown_ms=0) as server:
            ann, bob = await player(server, "Ann"), await player(server, "Bob")
            ended = await race_to_the_end(ann, bob, (3, 4, 5))
            await asyncio.sleep(0.2)  # the records are written, the races let go
            records = [await store.races.load_race(race) or {} for race in ended]
            assert [record.get("phase") for record in records] == ["done"] * 3
            assert not server.race_desk.rooms and not server.race_desk.races_of
            assert not server.relay.following and not server.relay.pulling
            assert not [key for key in store._sender.builder.known_racers if key[0] in ended]
            for client in (ann, bob):
                await client.close()
    finally:
        await store.purge()
        await store.close()


async def test_finished_races_events_are_let_go_once_no_resume_can_need_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A connected player's events are kept for a resume only as long as one could need
    them: the keepalive's ping interval and timeout, the close timeout and the grace
    period (and some slack, none here). After that a resume gets a snapshot."""
    monkeypatch.setattr(sessions, "EVENT_SLACK_S", 0.0)
    settings = {"countdown_ms": 0, "grace_ms": 100, "ping_interval_s": 0.1}
    async with running_server(ping_timeout_s=0.1, close_timeout_s=0.1, **settings) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        await race_to_the_end(ann, bob, (3, 4))
        kept = [server.sessions.get(racer.player) for racer in (ann, bob)]
        assert [bool(session and session.events) for session in kept] == [True, True]
        await asyncio.sleep(0.6)  # past 0.4 s: ping interval, timeouts and grace period
        assert [server.lines.get(racer.player) is not None for racer in (ann, bob)] == [True, True]
        assert [session.events for session in kept if session is not None] == [None, None]
        ann.last_event -= 1  # as if the race's last event had not reached Ann
        await ann.resume()
        assert (await ann.next_event()).kind == "snapshot"
        for client in (ann, bob):
            await client.close()
