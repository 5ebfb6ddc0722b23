"""Redis Sentinel: the primary killed with -9 mid-race is failed over by the sentinels, and
the nodes (``solrace serve --redis-sentinel``) find the new primary and carry on: the race
goes on without a player doing anything but resending what was answered
``store_unavailable``, and with ``--redis-wait-replicas 1`` every action acknowledged before,
during and after the failover is on the new primary. Real processes: a primary, two replicas,
three ``redis-sentinel`` processes and two server nodes, a racer on each."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from harness import SERVE_QUICKLY, winning_actions
from racers import Racer
from redis_sentinels import SERVICE, SentinelSet
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client
from server.handover.node_news import Resync, encode
from server.store import Replication, Store, open_store, sentinel_addresses

GAME, DEAL = "mount_sunflower", 18
FAST = ("--countdown-ms", "100", "--rate", "10000", "--burst", "10000")


@pytest.fixture
def sentinels(tmp_path: Path) -> Iterator[SentinelSet]:
    """A primary, two replicas (with one waited for, a write still counts once the
    primary is gone) and three sentinels, all stopped afterwards."""
    group = SentinelSet(tmp_path / "redis", replicas=2)
    try:
        yield group.start()
    finally:
        group.stop()


def replication(group: SentinelSet, wait_replicas: int = 1) -> Replication:
    return Replication(sentinel_addresses(group.addresses), SERVICE, wait_replicas)


@pytest.fixture
async def store(sentinels: SentinelSet) -> AsyncIterator[Store]:
    store = open_store(
        None, prefix=f"failover-{uuid.uuid4().hex}:", replication=replication(sentinels)
    )
    yield store
    await store.close()


@pytest.mark.timeout(120)
async def test_a_race_goes_on_across_a_failover_and_nothing_acknowledged_is_lost(
    sentinels: SentinelSet, store: Store, tmp_path: Path
) -> None:
    prefix = getattr(store, "prefix")  # noqa: B009 -- the Redis store's, for the nodes
    args = ("--redis-sentinel", sentinels.addresses, "--redis-service", SERVICE)
    args += ("--redis-prefix", prefix, "--redis-wait-replicas", "1", *SERVE_QUICKLY, *FAST)
    nodes = [ServeProcess(free_port(), tmp_path / f"node-{i}", *args) for i in range(2)]
    with nodes[0], nodes[1]:
        for node in nodes:
            node.start()
        wins = winning_actions(GAME, DEAL)
        ann = await Client.connect(nodes[0].url, "Ann")
        bob = await Client.connect(nodes[1].url, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        a, b = Racer(ann, race), Racer(bob, race)
        await a.play(wins[:20])
        await b.play(wins[:10])

        old_primary = sentinels.primary_port()
        playing = asyncio.create_task(a.play(wins[20:60], pace_s=0.02))
        await asyncio.sleep(0.3)  # actions on their way as the primary dies
        acked_before = len(a.acked)
        sentinels.primary.kill()
        killed = time.perf_counter()
        while len(a.acked) < acked_before + 2:  # one in flight at the kill, one after it
            await asyncio.sleep(0.01)
        back_s = time.perf_counter() - killed
        await playing
        assert sentinels.primary_port() != old_primary
        print(f"kill -9 of the primary -> an action answered again: {back_s:.2f} s")

        await b.play(wins[10:30])  # the other node carries on too
        await bob.resign(race)
        finished = await a.play(wins[60:])
        assert finished["outcome"] == "finished"
        for client in (ann, bob):  # the result crosses nodes on the new primary's pub/sub
            result = (await client.next_event("result")).data
            assert [r["player"] for r in result["ranking"]] == [ann.player, bob.player]
        for racer in (a, b):
            stored = [
                entry.action
                for entry in await store.races.actions(race)
                if entry.player == racer.client.player
            ]
            assert stored == racer.acked  # nothing acknowledged lost, nothing doubled
        await ann.close()
        await bob.close()


@pytest.mark.timeout(60)
async def test_a_store_s_listening_follows_the_primary_and_says_to_read_everything_again(
    sentinels: SentinelSet, store: Store
) -> None:
    """The subscriber's connection dies with the primary; it is opened again on the one
    the sentinels name next, subscribed again, and the listener told to resync (messages
    may have been missed), then hears what is published there."""
    heard: list[tuple[str, object]] = []
    store.listener = lambda channel, message: heard.append((channel, message))
    await store.bus.subscribe(["news"])
    sentinels.primary.kill()
    while ("", encode(Resync())) not in heard:
        await asyncio.sleep(0.05)
    assert sentinels.primary_port() != sentinels.primary.port
    await store.bus.publish("news", {"k": "after"})
    while ("news", {"k": "after"}) not in heard:
        await asyncio.sleep(0.05)
