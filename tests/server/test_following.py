"""A node following a race another node's racer plays in: the "log" message carries the
racer's stored entries, and the follower applies them without reading the log, unless they
do not continue its replica (a message missed): then it reads the log. Two servers in the
test's event loop, on one real Redis."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from harness import running_server, url, winning_actions
from racers import Racer

from client.api import Client
from protocol.race import LogEntry, Now
from server.app import RaceServer
from server.handover.effects import Push
from server.handover.jobs import AppendActions
from server.handover.moment import now
from server.store.redis_store import RedisStore

GAME, DEAL = "mount_sunflower", 18


@pytest.fixture
async def two_servers(redis_url: str) -> AsyncIterator[tuple[RaceServer, RaceServer]]:
    prefix = f"following-{uuid.uuid4().hex}:"
    stores = [RedisStore(redis_url, prefix=prefix) for _ in range(2)]
    async with running_server(stores[0]) as a, running_server(stores[1]) as b:
        yield a, b
    await stores[0].purge()
    for store in stores:
        await store.close()


def count_log_reads(server: RaceServer) -> list[tuple[str, str, int]]:
    """Every ``racer_log`` call ``server``'s store gets from now on."""
    reads: list[tuple[str, str, int]] = []
    store = server.store
    read = store.races.racer_log

    async def counted(race: str, player: str, after_seq: int = 0) -> list[LogEntry]:
        reads.append((race, player, after_seq))
        return await read(race, player, after_seq)

    store.races.racer_log = counted  # type: ignore[method-assign]
    return reads


async def replica_reaches(server: RaceServer, race: str, player: str, seq: int) -> bool:
    """Whether ``server``'s replica of ``race`` has applied ``player``'s action ``seq``
    within a few seconds."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        room = server.race_desk.rooms.get(race)
        if room is not None and room.race.racers[player].last_seq >= seq:
            return True
        await asyncio.sleep(0.02)
    return False


async def cross_node_race(a: RaceServer, b: RaceServer) -> tuple[Client, Client, str]:
    """Ann on node A and Bob on node B in one started race."""
    ann, bob = await Client.connect(url(a), "Ann"), await Client.connect(url(b), "Bob")
    race = (await ann.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    for client in (ann, bob):
        await client.next_event("started")
    assert await replica_reaches(b, race, ann.player, 0)  # node B follows the race
    await asyncio.sleep(0.2)  # its first reads (following it) are done
    return ann, bob, race


async def test_a_follower_applies_the_entries_the_message_carries_without_reading_the_log(
    two_servers: tuple[RaceServer, RaceServer],
) -> None:
    a, b = two_servers
    ann, bob, race = await cross_node_race(a, b)
    reads = count_log_reads(b)
    ann_racer = Racer(ann, race)
    await ann_racer.play(winning_actions(GAME, DEAL)[:30])
    assert await replica_reaches(b, race, ann.player, 30)
    replica = b.race_desk.rooms[race].race.racers[ann.player]
    assert [entry.action for entry in replica.log] == ann_racer.acked
    assert reads == []  # every action came in its message
    for client in (ann, bob):
        await client.close()


async def test_a_follower_that_missed_a_message_reads_the_log_at_the_next_one(
    two_servers: tuple[RaceServer, RaceServer],
) -> None:
    a, b = two_servers
    ann, bob, race = await cross_node_race(a, b)
    reads = count_log_reads(b)
    heard = b.store.listener
    assert heard is not None
    dropped: list[dict[str, Any]] = []

    def missing_one(channel: str, message: dict[str, Any]) -> None:
        if message.get("k") == "log" and message.get("p") == ann.player and not dropped:
            dropped.append(message)  # lost on the way
            return
        heard(channel, message)

    b.store.listener = missing_one
    ann_racer = Racer(ann, race)
    wins = winning_actions(GAME, DEAL)
    await ann_racer.play(wins[:1])
    await asyncio.sleep(0.2)
    assert dropped and dropped[0]["e"][0][0] == 1  # action 1 was carried, and missed
    assert b.race_desk.rooms[race].race.racers[ann.player].last_seq == 0
    await ann_racer.play(wins[1:6])
    assert await replica_reaches(b, race, ann.player, 6)
    replica = b.race_desk.rooms[race].race.racers[ann.player]
    assert [entry.action for entry in replica.log] == ann_racer.acked
    assert reads and reads[0] == (race, ann.player, 0)  # the gap: read from the last seen
    for client in (ann, bob):
        await client.close()


async def test_a_message_that_fails_to_apply_leaves_the_follower_hearing_and_reading_the_log(
    two_servers: tuple[RaceServer, RaceServer], caplog: pytest.LogCaptureFixture
) -> None:
    a, b = two_servers
    ann, bob, race = await cross_node_race(a, b)
    reads = count_log_reads(b)
    carried = b.races.carried
    failed: list[int] = []

    def failing_once(*args: Any) -> Any:
        if not failed:
            failed.append(1)
            raise RuntimeError("a bug")
        return carried(*args)

    b.races.carried = failing_once  # type: ignore[method-assign]
    ann_racer = Racer(ann, race)
    await ann_racer.play(winning_actions(GAME, DEAL)[:5])
    assert await replica_reaches(b, race, ann.player, 5)
    replica = b.race_desk.rooms[race].race.racers[ann.player]
    assert [entry.action for entry in replica.log] == ann_racer.acked
    assert failed and reads  # the failed message's entries were read from the log
    assert "a log message between nodes failed" in caplog.text
    for client in (ann, bob):
        await client.close()


async def test_a_racer_s_log_message_comes_before_what_their_next_request_changes(
    two_servers: tuple[RaceServer, RaceServer],
) -> None:
    a, b = two_servers
    ann, bob, race = await cross_node_race(a, b)
    heard = b.store.listener
    assert heard is not None
    logs_before_record: list[int] = []
    logs = 0

    def noted(channel: str, message: dict[str, Any]) -> None:
        nonlocal logs
        if message.get("n") == a.node and message.get("k") == "log":
            logs += 1
        if message.get("n") == a.node and message.get("k") == "record":
            logs_before_record.append(logs)
        heard(channel, message)

    b.store.listener = noted
    await Racer(ann, race).play(winning_actions(GAME, DEAL)[:5])
    await ann.resign(race)  # a record change, on node A, right after her last action
    deadline = time.monotonic() + 5
    while not logs_before_record and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert logs_before_record == [5]  # every action's message came before it
    for client in (ann, bob):
        await client.close()


async def test_a_batch_sent_again_after_noscript_still_lists_its_racers(redis_url: str) -> None:
    """A Redis that lost its scripts (restarted) answers the append with NOSCRIPT: the
    batch goes again once they are loaded, and it still adds its racers to the race's
    set (by which the race is rebuilt and its logs found)."""
    store = RedisStore(redis_url, prefix=f"following-{uuid.uuid4().hex}:")
    store.node = "node-a"
    await store._redis.script_flush()
    entry = LogEntry("ann", 1, "deal", 5)
    assert await store.write([AppendActions("r1", (entry,))]) == [None]
    assert await store.races.racers_logged("r1") == ["ann"]
    assert await store.races.actions("r1") == [entry]
    await store.purge()
    await store.close()


async def test_a_follower_sends_standings_only_to_its_own_racers(
    two_servers: tuple[RaceServer, RaceServer],
) -> None:
    a, b = two_servers
    ann, bob, race = await cross_node_race(a, b)
    await Racer(ann, race).play(winning_actions(GAME, DEAL)[:3])
    assert await replica_reaches(b, race, ann.player, 3)
    room = b.race_desk.rooms[race]
    room.told.clear()  # node b's own ticker may have told Bob already (1 run in 15 or so)
    later = now()
    later = Now(later.mono_ms + 60_000, later.wall_ms + 60_000)  # everyone idle since long
    pushed = [e for e in b.races.look_after(room, later) if isinstance(e, Push)]
    assert [(push.player, push.event.kind) for push in pushed] == [(bob.player, "standings")]
    for client in (ann, bob):
        await client.close()
