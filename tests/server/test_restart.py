"""A process is disposable: with Redis, a server killed mid-race (kill -9) or stopped for a
deploy (SIGTERM) is replaced by a new process on the same Redis, and every player carries
on with their token: same player, same races, positions, clocks and sequence numbers; the
races finish and rank correctly; not one acknowledged action is lost or doubled."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import msgpack
import pytest
from harness import SERVE_QUICKLY, member, running_server, winning_actions
from racers import Racer
from redis_server import RedisServer, free_port
from serve_process import ServeProcess
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from client.api import Client, ServerError
from protocol.daily import DAY_MS, day_of
from protocol.games import rules_for
from protocol.messages import Event
from protocol.race import Now, view_json
from protocol.race_record import restore
from protocol.race_views import race_result
from protocol.replay import replay
from protocol.verify import check_log
from protocol.wire import MSGPACK
from server.store import Store, open_store

GAME, DEAL = "mount_sunflower", 18
NOW = Now(10**9, int(time.time() * 1000))  # to rebuild finished races from the store


@pytest.fixture
async def store_and_server(
    redis_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Store, ServeProcess]]:
    prefix = f"restart-{uuid.uuid4().hex}:"
    store = open_store(redis_url, prefix=prefix)
    now = int(time.time() * 1000)
    for day in {day_of(now), day_of(now + DAY_MS)}:  # the test may cross midnight
        await store.days.set_daily_deal(GAME, day, DEAL)
    args = ("--redis", redis_url, "--redis-prefix", prefix, *SERVE_QUICKLY)
    fast = ("--countdown-ms", "100", "--rate", "10000", "--burst", "10000", "--rank-new-accounts")
    serving = ServeProcess(free_port(), tmp_path, *args, *fast)
    with serving:
        yield store, serving.start()
    await store.close()


async def racing_alone(server: ServeProcess) -> tuple[Client, str]:
    """Ann, connected, in a race for one that has started: her client and the race."""
    ann = await Client.connect(server.url, "Ann")
    race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
    await ann.next_event("started")
    return ann, race


def view_after(actions: list[str]) -> dict[str, object]:
    rules = rules_for(GAME)
    return view_json(rules.view(replay(rules, DEAL, actions)))


async def stored_actions(store: Store, race: str, player: str) -> list[str]:
    return [entry.action for entry in await store.races.actions(race) if entry.player == player]


@pytest.mark.parametrize("how", ["kill -9", "SIGTERM"])
async def test_a_server_replaced_mid_race_carries_every_race_on(
    store_and_server: tuple[Store, ServeProcess], how: str
) -> None:
    store, server = store_and_server
    wins = winning_actions(GAME, DEAL)
    url = server.url
    ann, bob, cy = [await Client.connect(url, n) for n in ("Ann", "Bob", "Cy")]
    dee = await member(url, "Dee")  # an account: her first daily attempt is ranked
    race = (await ann.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    start = await ann.next_event("started")
    a, b = Racer(ann, race), Racer(bob, race)
    attempt = (await dee.daily_start(GAME))["race"]["race"]
    d = Racer(dee, attempt)
    await a.play(wins[:40])
    await b.play(wins[:25])
    await d.play(wins[:30])
    await cy.spectate(race)
    in_flight = asyncio.create_task(a.act(wins[40]))  # an action on its way at the crash
    await asyncio.sleep(0)
    if how == "kill -9":
        server.kill()
    else:
        assert await asyncio.to_thread(server.terminate) == 0
        shutdown = await bob.next_event("shutdown")
        assert shutdown.data["reconnect_in_ms"] > 0
    await asyncio.to_thread(server.start)  # a new process, the same Redis and address

    for client in (bob, cy, dee):
        before = client.player
        welcome = await client.reconnect()
        assert welcome.player == before
        assert welcome.resumed is (client is not cy)  # racers have races to carry on
    await in_flight  # resent after its own reconnect if it was not answered: once
    if ann.reader is None or ann.reader.done():
        await ann.reconnect()
    snapshot = await bob.next_event("snapshot")
    (mine,) = snapshot.data["races"]
    assert mine["you"]["seq"] == 25 and mine["you"]["view"] == view_after(wins[:25])
    assert mine["start_at_ms"] == start.data["start_at_ms"]  # the same clock
    own = await ann.snapshot(race)
    assert own["you"]["seq"] == 41 and own["you"]["view"] == view_after(wins[:41])

    # The old connection's feed may hold the in-flight action (items go out at the end of
    # the loop turn that made them): what counts is what follows the new snapshot.
    while not cy.queue.empty():
        cy.queue.get_nowait()
    watched = await cy.spectate(race)  # spectators subscribe again: snapshot, then the feed
    ann_seen = next(p for p in watched["players"] if p["player"] == ann.player)
    ann_own = next(p for p in own["players"] if p["player"] == ann.player)
    assert ann_seen["view"] == view_after(wins[:41])
    assert ann_seen["actions"] == ann_own["actions"] > 41  # `auto` counts every card
    finished = await a.play(wins[41:])
    assert finished["outcome"] == "finished"
    item = await cy.next_event("act", where=lambda data: data.get("player") == ann.player)
    assert item.data["action"] == wins[41]
    await b.client.resign(race)
    result = (await ann.next_event("result")).data
    assert [r["player"] for r in result["ranking"]] == [ann.player, bob.player]
    assert result["ranking"][0]["time_ms"] == finished["time_ms"]
    assert finished["time_ms"] > 0

    daily = await d.play(wins[30:])
    assert daily["outcome"] == "finished"
    await dee.next_event("result")
    for _ in range(100):  # the board is written just after the result is told
        board = await dee.daily_board(GAME)
        if board["me"] is not None:
            break
        await asyncio.sleep(0.02)
    assert board["me"]["rank"] == 1 and board["me"]["race"] == attempt
    again = await dee.daily_start(GAME)  # the first attempt stays the first
    assert again["ranked"] is False
    await dee.resign(again["race"]["race"])

    for racer, race_id in ((a, race), (b, race), (d, attempt)):
        logged = await stored_actions(store, race_id, racer.client.player)
        assert logged == racer.acked  # nothing acknowledged lost, nothing doubled
    for client in (ann, bob, cy, dee):
        await client.close()


async def test_a_token_names_the_same_player_after_a_restart(
    store_and_server: tuple[Store, ServeProcess],
) -> None:
    _, server = store_and_server
    ann = await member(server.url, "Ann")
    attempt = (await ann.daily_start(GAME))["race"]["race"]
    await ann.resign(attempt)
    await ann.close()
    server.kill()
    await asyncio.to_thread(server.start)
    back = Client(server.url, "Ann")
    back.token = ann.token
    welcome = await back.reconnect()
    assert welcome.player == ann.player
    board = await back.daily_board(GAME)
    assert board["me"] is not None and board["me"]["race"] == attempt
    assert (await back.daily_start(GAME))["ranked"] is False
    await back.close()


async def test_a_finished_race_stays_readable_after_a_restart(
    store_and_server: tuple[Store, ServeProcess],
) -> None:
    _, server = store_and_server
    ann, race = await racing_alone(server)
    for action in winning_actions(GAME, DEAL):
        await ann.act(race, action)
    result = (await ann.next_event("result")).data
    await ann.close()
    assert await asyncio.to_thread(server.terminate) == 0
    await asyncio.to_thread(server.start)
    someone = await Client.connect(server.url, "Someone")
    info = await someone.snapshot(race)
    assert info["phase"] == "done" and info["deal"] == str(DEAL)
    (standing,) = info["players"]
    assert standing["outcome"] == "finished"
    assert standing["time_ms"] == result["ranking"][0]["time_ms"]
    log = await someone.race_log(race)  # its log, read back from Redis, replays to its result
    assert log["result"] == result and check_log(log) == []
    await someone.close()


async def test_sigterm_during_a_redis_outage_exits_in_its_time_and_loses_nothing_told(
    redis_server_factory: Callable[..., RedisServer], tmp_path: Path
) -> None:
    redis = redis_server_factory("--appendonly", "yes", "--appendfsync", "always")
    args = ("--redis", redis.url, *SERVE_QUICKLY, "--drain-s", "0.5", "--rate", "10000")
    wins = winning_actions(GAME, DEAL)
    with ServeProcess(free_port(), tmp_path, *args) as server:
        server.start()
        ann, race = await racing_alone(server)
        racer = Racer(ann, race)
        await racer.play(wins[:10])
        redis.kill()
        with pytest.raises(ServerError) as refused:  # not played, not lost: never told
            await ann.act(race, wins[10])
        assert refused.value.code == "store_unavailable"
        started = time.monotonic()
        assert await asyncio.to_thread(server.terminate) == 0
        assert time.monotonic() - started < 10  # the drain's bound, and closing
        redis.start()
        await asyncio.to_thread(server.start)
        await ann.reconnect()
        finished = await racer.play(wins[10:])
        assert finished["outcome"] == "finished"
        store = open_store(redis.url)
        try:
            assert [e.action for e in await store.races.actions(race)] == racer.acked == wins
        finally:
            await store.close()
        await ann.close()


async def test_a_result_told_just_before_a_crash_is_stored_by_the_next_node(
    store_and_server: tuple[Store, ServeProcess],
) -> None:
    store, server = store_and_server
    ann, race = await racing_alone(server)
    finished = await Racer(ann, race).play(winning_actions(GAME, DEAL))
    server.kill()  # right after the winning action's answer: its result may not be written
    await asyncio.to_thread(server.start)
    await ann.reconnect()  # the race is found again; over by its log, its end is written
    for _ in range(100):
        result = await store.races.load_result(race)
        if result is not None:
            break
        await asyncio.sleep(0.05)
    assert result is not None and result["ranking"][0]["time_ms"] == finished["time_ms"]
    assert race not in await store.races.listed_races("live")
    await ann.close()


async def test_a_rolling_restart_while_fifty_players_race_ends_every_race_ranked_right(
    store_and_server: tuple[Store, ServeProcess],
) -> None:
    store, server = store_and_server
    wins = winning_actions(GAME, DEAL)
    players = [await Client.connect(server.url, f"bot{i}") for i in range(50)]
    races = []
    for first, second in zip(players[::2], players[1::2], strict=True):
        race = (await first.create_race(GAME, deal=DEAL))["race"]
        await second.join_race(race)
        races.append(race)
    racers = [Racer(p, races[i // 2]) for i, p in enumerate(players)]
    for p in players:
        await p.next_event("started")
    paces = [0.004 + 0.002 * (i % 5) for i in range(50)]  # some faster than others
    playing = [
        asyncio.create_task(r.play(wins, pace)) for r, pace in zip(racers, paces, strict=True)
    ]
    await asyncio.sleep(0.4)  # mid-race: a deploy
    assert all(0 < len(racer.acked) < len(wins) for racer in racers)
    assert await asyncio.to_thread(server.terminate) == 0
    await asyncio.to_thread(server.start)
    finals = await asyncio.wait_for(asyncio.gather(*playing), 120)
    assert all(final["outcome"] == "finished" for final in finals)
    for racer in racers:
        assert await stored_actions(store, racer.race, racer.client.player) == racer.acked
    for race in races:
        for _ in range(100):
            result = await store.races.load_result(race)
            if result is not None:
                break
            await asyncio.sleep(0.05)
        assert result is not None
        rebuilt = restore(
            await store.races.load_race(race) or {},
            rules_for(GAME),
            await store.races.actions(race),
            NOW,
        )
        assert result["ranking"] == race_result(rebuilt)["ranking"]  # as its log replays
        times = [entry["time_ms"] for entry in result["ranking"]]
        assert all(entry["finished"] for entry in result["ranking"]) and times == sorted(times)
    for p in players:
        await p.close()


async def every_key_and_value(store: Store) -> list[str]:
    """Every key under the store's prefix, and everything each one holds, as text."""
    redis = store._redis  # type: ignore[attr-defined]
    dumped: list[str] = []
    async for key in redis.scan_iter(match=f"{store.prefix}*", count=1000):  # type: ignore[attr-defined]
        kind = await redis.type(key)
        if kind == "string":
            value = await redis.get(key)
        elif kind == "hash":
            value = await redis.hgetall(key)
        elif kind == "set":
            value = await redis.smembers(key)
        elif kind == "zset":
            value = await redis.zrange(key, 0, -1, withscores=True)
        elif kind == "list":
            value = await redis.lrange(key, 0, -1)
        elif kind == "stream":
            value = await redis.xrange(key)
        else:
            raise AssertionError(f"a key of a type this test does not read: {key} ({kind})")
        dumped += [key, repr(value)]
    return dumped


async def test_resume_tokens_are_stored_only_as_their_hashes(
    store_and_server: tuple[Store, ServeProcess],
) -> None:
    store, server = store_and_server
    ann = await Client.connect(server.url, "Ann")  # a guest
    guest_token = ann.token
    await ann.register("Ann", "Ann's secret pass")  # an account: a new token
    again = await Client.connect(server.url, "Ann again")
    await again.sign_in("Ann", "Ann's secret pass")  # a second token; the first is let go
    bob = await Client.connect(server.url, "Bob")
    race = (await again.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    await bob.next_event("started")
    await Racer(bob, race).play(winning_actions(GAME, DEAL)[:5])
    server.kill()
    await asyncio.to_thread(server.start)
    await bob.reconnect()  # a resume on a new process: looked up by the token's hash
    tokens = {guest_token, ann.token, again.token, bob.token}
    assert len(tokens) == 4 and all(len(token) >= 16 for token in tokens)
    dumped = await every_key_and_value(store)
    hashes = {hashlib.sha256(token.encode()).hexdigest() for token in tokens - {guest_token}}
    assert all(any(h in text for text in dumped) for h in hashes)  # the hashes are there
    for token in tokens:
        assert not any(token in text for text in dumped)  # the tokens are not
    for client in (ann, again, bob):
        await client.close()


@pytest.mark.parametrize("how", ["kill -9", "SIGTERM"])
async def test_event_numbers_keep_growing_across_a_restart(
    store_and_server: tuple[Store, ServeProcess], how: str
) -> None:
    _, server = store_and_server
    ann, bob = await Client.connect(server.url, "Ann"), await Client.connect(server.url, "Bob")
    race = (await ann.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    await ann.next_event("started")
    await Racer(bob, race).play(winning_actions(GAME, DEAL)[:5])
    await ann.next_event("standings")  # Bob's progress: more events for Ann
    before = [ann.queue.get_nowait() for _ in range(ann.queue.qsize())]
    seen = ann.last_event
    assert seen >= 4 and all(e.n <= seen for e in before if isinstance(e, Event))
    if how == "kill -9":
        server.kill()
    else:
        assert await asyncio.to_thread(server.terminate) == 0
    await asyncio.to_thread(server.start)
    await ann.reconnect()
    await bob.reconnect()
    await Racer(bob, race).play(winning_actions(GAME, DEAL)[5:8])
    await bob.resign(race)
    await ann.resign(race)
    after: list[Event] = []
    while not after or after[-1].kind != "result":
        item = await ann.next_event()
        assert isinstance(item, Event)
        after.append(item)
    if how == "SIGTERM":  # told by the old process before it went
        assert after.pop(0).kind == "shutdown"
    assert after[0].kind == "snapshot" and after[0].n > seen  # never a number used before
    numbers = [event.n for event in after]
    assert numbers == sorted(set(numbers))
    for client in (ann, bob):
        await client.close()


async def test_a_deploy_ends_soon_even_with_a_client_that_does_not_read(
    store_and_server: tuple[Store, ServeProcess],
) -> None:
    _, server = store_and_server
    ann, race = await racing_alone(server)
    reader = await connect(server.url, subprotocols=[Subprotocol(MSGPACK)], compression=None)
    await reader.send(msgpack.packb({"type": "hello", "id": 0, "protocol": 1, "name": "Bo"}))
    await reader.send(msgpack.packb({"type": "spectate", "id": 1, "race": race}))
    reader.transport.pause_reading()  # from now on it never reads
    ask = msgpack.packb({"type": "snapshot", "id": 2, "race": race})  # a few KiB each
    for _ in range(5_000):  # megabytes of answers it does not read
        await reader.send(ask)
    started = time.monotonic()
    assert await asyncio.to_thread(server.terminate, 15) == 0
    assert time.monotonic() - started < 8  # the close timeout (2 s) and a margin, not keepalive
    await ann.close()
    reader.transport.abort()


async def test_a_shutdown_step_that_hangs_is_left_after_its_time_and_named_in_the_log(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.app.STOP_STEP_S", 0.2)
    caplog.set_level(logging.INFO, logger="solrace.server")

    let_go = asyncio.Event()

    async def stuck() -> None:  # a task of the server's that does not end when cancelled
        while not let_go.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await let_go.wait()

    async with running_server() as server:
        server.tasks.append(asyncio.create_task(stuck(), name="stuck"))
        started = time.monotonic()
        try:
            await server.stop()
        finally:
            stopping_took = time.monotonic() - started
            let_go.set()
    assert stopping_took < 3
    overran = [r for r in caplog.records if "did not finish in time" in r.getMessage()]
    assert [r.step for r in overran] == ["stopping tasks"]  # type: ignore[attr-defined]
    named = overran[0].tasks  # type: ignore[attr-defined]
    assert any(task.startswith("stuck at ") and "<locals>.stuck:" in task for task in named)
    assert "stopped" in [r.getMessage() for r in caplog.records]
