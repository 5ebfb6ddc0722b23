"""Redis goes away, or fills up, mid-race. Whatever a player is told is stored first: while
Redis cannot store it, an action is refused (``store_unavailable``) and not played, and so
is a change of the race (a resignation): nothing changed. Health says degraded meanwhile;
once Redis takes writes again everything goes on from where it was. Nothing acknowledged
is ever lost or doubled."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import pytest
from harness import (
    health,
    member,
    password_for,
    player,
    racing_alone,
    running_server,
    url,
    winning_actions,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis_server import RedisServer
from redis_tripwire import Tripwire

from client.api import Client, ServerError
from protocol.race import LogEntry
from protocol.wire import decode_from_server
from server.handover.jobs import AppendActions
from server.store import StoreUnavailable, open_store

GAME, DEAL = "mount_sunflower", 18
PERSISTENT = ("--appendonly", "yes", "--appendfsync", "always")


async def until(check: Callable[[], bool], seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("it never happened")


async def test_while_redis_is_down_nothing_is_played_or_changed_and_all_goes_on_after(
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
        for refused_request in (ann.act(race, wins[50]), bob.resign(race)):
            with pytest.raises(ServerError) as refused:
                await refused_request
            assert refused.value.code == "store_unavailable"
        mine = await ann.snapshot(race)
        assert mine["you"]["view"] == before and mine["phase"] == "running"  # unchanged
        status = await asyncio.to_thread(health, server.port)
        assert status["status"] == "degraded" and status["store"] == "unavailable"
        redis.start()  # the same data (append-only file): everything goes on from there
        reply = await resend(ann, race, wins[50], seq=51)
        assert reply["seq"] == 51
        await resend(bob, race, None)
        await ann.resign(race)
        result = (await ann.next_event("result")).data
        await until(lambda: server.writer.backlog == 0)
        assert (await asyncio.to_thread(health, server.port))["status"] == "ok"
    reader = open_store(redis.url, prefix="outage:")
    try:
        stored = await reader.races.load_result(race)
        assert stored is not None and stored["ranking"] == result["ranking"]
        assert [e.action for e in await reader.races.actions(race)] == wins[:51]
        assert await reader.races.listed_races("live") == []
    finally:
        await reader.close()


async def resend(client, race, action, seq=None):  # type: ignore[no-untyped-def]
    """An action (or, without one, a resignation) sent again until the store takes it."""
    for _ in range(100):
        try:
            if action is None:
                return await client.resign(race)
            return await client.act(race, action, seq=seq)
        except ServerError as error:
            if error.code != "store_unavailable":
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("the store never came back")


async def test_a_redis_at_its_memory_limit_refuses_what_it_cannot_store_and_goes_on_after(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    redis = redis_server_factory("--maxmemory-policy", "noeviction")
    wins = winning_actions(GAME, DEAL)
    store = open_store(redis.url, prefix="full:")
    admin = open_store(redis.url, prefix="admin:")
    async with running_server(store, countdown_ms=0) as server:
        ann, race = await racing_alone(server, "Ann", wins[:20])
        # Redis is full: its memory limit is below what it holds
        await admin._redis.config_set("maxmemory", "1")  # type: ignore[attr-defined]
        for refused_request in (ann.act(race, wins[20]), ann.resign(race)):
            with pytest.raises(ServerError) as refused:
                await refused_request
            assert refused.value.code == "store_unavailable"
        await until(lambda: server.writer.failures > 0)
        status = await asyncio.to_thread(health, server.port)
        assert status["status"] == "degraded" and status["writes"] != "ok"
        await admin._redis.config_set("maxmemory", "0")  # type: ignore[attr-defined]
        await resend(ann, race, wins[20], seq=21)
        await ann.resign(race)
        await ann.next_event("result")
        await until(lambda: server.writer.backlog == 0)
        stored = await server.store.races.load_result(race)
        assert stored is not None and stored["ranking"][0]["outcome"] == "resigned"
        assert [e.action for e in await server.store.races.actions(race)] == wins[:21]
    await admin.close()


async def test_redis_lost_while_a_resent_action_s_fence_is_read_is_store_unavailable(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    resent = AppendActions("r1", (LogEntry("ann", 1, "deal", 5),), fence=2)
    assert await store.write([resent]) == [None]

    async def lost(*args: object, **kwargs: object) -> None:
        raise RedisConnectionError("Connection reset by peer")  # Redis gone at that moment

    # the resend is refused as seen, and its fence is read to tell a resend from a takeover
    monkeypatch.setattr(store._redis, "xrevrange", lost)  # type: ignore[attr-defined]
    with pytest.raises(StoreUnavailable):
        await store.write([resent])
    await store.close()


async def test_a_task_busy_with_redis_ends_at_its_first_cancel(redis_url: str) -> None:
    """A redis-py socket timeout goes through ``asyncio.wait_for``, which on Python 3.11
    drops a cancel arriving as a command's send completes (CPython issue 86296): a task
    renewing a lease in a loop then went on after most cancels, and a deploy waited."""
    store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")

    async def renewing() -> None:
        while True:
            await store.bus.claim_lease("timers", "node", 1000)

    try:
        for eighths_of_ms in range(40):  # cancelled at 40 moments of its loop
            task = asyncio.create_task(renewing())
            await asyncio.sleep(eighths_of_ms / 8000)
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=1)
            assert done and task.cancelled(), f"still running, cancelled at {eighths_of_ms}/8 ms"
    finally:
        await store.purge()
        await store.close()


async def test_a_sign_in_the_store_fails_to_finish_leaves_the_guest_session_as_it_was(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    redis = redis_server_factory(*PERSISTENT)
    tripwire = await Tripwire(redis.port).start()
    store = open_store(tripwire.url, prefix=f"signin-{uuid.uuid4().hex}:")
    async with running_server(store) as server:
        ann = await member(server, "Ann")
        await ann.close()
    async with running_server(store) as server:  # where Ann has no session yet
        guest = await player(server, "Gus")
        # Redis dies as the account's session is opened, after the password was checked
        tripwire.arm(ann.player.encode(), b"INCR", then=redis.kill)
        with pytest.raises(ServerError) as refused:
            await guest.sign_in("Ann", password_for("Ann"))
        assert refused.value.code == "store_unavailable"
        session = server.sessions.get(guest.player)
        assert session is not None  # the connection still speaks for it
        assert server.lines.get(guest.player) is not None
        redis.start()
        for _ in range(100):  # the guest signs in once Redis is back
            try:
                answer = await guest.sign_in("Ann", password_for("Ann"))
                break
            except ServerError as error:
                assert error.code == "store_unavailable"
                await asyncio.sleep(0.1)
        assert answer["player"] == ann.player
        await guest.close()
    await tripwire.close()


async def test_a_grace_period_that_ends_while_redis_is_down_drops_the_racer_once_it_is_back(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    redis = redis_server_factory(*PERSISTENT)
    store = open_store(redis.url, prefix=f"grace-{uuid.uuid4().hex}:")
    async with running_server(store, countdown_ms=0, grace_ms=200) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        redis.kill()
        await ann.drop()
        await asyncio.sleep(0.6)  # Ann's grace period is over while Redis is down
        redis.start()
        racers = server.race_desk.rooms[race].race.racers
        await until(lambda: racers[ann.player].outcome is not None)
        assert racers[ann.player].outcome.value == "dropped"  # type: ignore[union-attr]
        assert racers[bob.player].outcome is None  # Bob races on
        await bob.close()


async def test_a_hello_is_answered_once_when_the_store_fails_just_after_it(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    """Noting an account's address for the day comes after its welcome: Redis dying just
    then loses the note (best effort), and the hello gets no second answer."""
    redis = redis_server_factory(*PERSISTENT)
    tripwire = await Tripwire(redis.port).start()
    store = open_store(tripwire.url, prefix=f"seen-{uuid.uuid4().hex}:")
    async with running_server(store) as server:
        ann = await member(server, "Ann")
        await ann.close()
        tripwire.arm(b"seen:", b"SADD", then=redis.kill)
        again = Client(url(server), "Ann")
        again.record = True
        await again._open(ann.token)
        await asyncio.wait_for(tripwire.tripped.wait(), 5)
        await asyncio.sleep(4)  # past the store's own retries: an error answer would be here
        answers = [
            message
            for message in (decode_from_server(f, again.encoding) for f in again.received)
            if message.get("id") == 1
        ]
        assert [message["type"] for message in answers] == ["welcome"]
        redis.start()
    await tripwire.close()
