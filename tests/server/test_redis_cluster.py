"""The server on a Redis Cluster (``solrace serve --redis-cluster``): real processes, three
primaries (``tests/support/redis_cluster.py``). Two nodes race one race across the nodes and
agree on its moves and its result; a race's keys and its news share one slot (its news on
a shard channel, SPUBLISH); the options refuse what a cluster cannot keep."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import winning_actions
from nodes import DEAL, FAST, GAME, eventually, racing_across, started_nodes, view_after
from racers import Racer
from redis_cluster import ClusterGroup, start_cluster
from serve_process import ServeProcess
from store_contract import a_record, append, listed

from protocol.errors import SolraceError
from protocol.race import LogEntry
from server.command import checked
from server.config import Settings
from server.store import Replication, Store, StoreUnavailable, cluster_addresses, open_store
from server.store.redis_store import RedisStore

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def cluster_store(redis_cluster: ClusterGroup) -> AsyncIterator[RedisStore]:
    nodes = cluster_addresses(redis_cluster.addresses)
    store = open_store(
        None, prefix=f"c-{uuid.uuid4().hex}:", replication=Replication(cluster=nodes)
    )
    assert isinstance(store, RedisStore)
    yield store
    await store.purge()
    await store.close()


@pytest.fixture
async def two_nodes(
    redis_cluster: ClusterGroup, cluster_store: RedisStore, tmp_path: Path
) -> AsyncIterator[tuple[Store, ServeProcess, ServeProcess]]:
    args = ("--redis-cluster", redis_cluster.addresses, "--redis-prefix", cluster_store.prefix)
    async with started_nodes(tmp_path, *args, "--grace-ms", "2000", *FAST) as (a, b):
        yield cluster_store, a, b


async def test_two_nodes_on_a_cluster_race_one_race_and_agree_on_its_moves_and_result(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    store, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    race, ann, bob, cy, dee = await racing_across(a, b)  # Ann and Cy on node A, the rest B
    for client in (ann, bob):
        await client.next_event("started")
    await cy.spectate(race)  # on Ann's node
    await dee.spectate(race)  # on Bob's node
    ann_racer, bob_racer = Racer(ann, race), Racer(bob, race)
    await ann_racer.play(wins[:30])
    await bob_racer.play(wins[:10])
    item = await dee.next_event("act", where=lambda d: d["player"] == ann.player)
    assert item.data["action"] == wins[0]  # node A's moves reached node B (SSUBSCRIBE)
    item = await cy.next_event("act", where=lambda d: d["player"] == bob.player)
    assert item.data["action"] == wins[0]  # and node B's reached node A

    async def both_see_both() -> bool:
        for watcher in (cy, dee):
            watched = await watcher.snapshot(race)
            views = {p["player"]: p["view"] for p in watched["players"]}
            if views != {ann.player: view_after(wins[:30]), bob.player: view_after(wins[:10])}:
                return False
        return True

    assert await eventually(both_see_both)  # the same moves on either node
    finished = await ann_racer.play(wins[30:])
    assert finished["outcome"] == "finished"
    await bob.resign(race)
    results = [(await c.next_event("result")).data for c in (ann, bob, cy, dee)]
    assert all(result["ranking"] == results[0]["ranking"] for result in results)
    assert [entry["player"] for entry in results[0]["ranking"]] == [ann.player, bob.player]
    for racer in (ann_racer, bob_racer):
        logged = [e.action for e in await store.races.racer_log(race, racer.client.player)]
        assert logged == racer.acked
    for client in (ann, bob, cy, dee):
        await client.close()


async def test_a_race_s_news_goes_on_a_shard_channel_in_the_slot_of_its_keys(
    cluster_store: RedisStore,
) -> None:
    store = cluster_store
    heard: list[tuple[str, object]] = []
    store.listener = lambda channel, message: heard.append((channel, message))
    await store.bus.subscribe(["race:r1"])
    cluster = store._calls.slots.cluster  # type: ignore[union-attr]
    named = f"{store.prefix}race:{{r1}}"
    assert cluster.keyslot(named) == cluster.keyslot(store._keys.race("r1", "race"))
    owner = cluster.get_node_from_key(named)
    assert named in await cluster.execute_command("PUBSUB SHARDCHANNELS", target_nodes=owner)
    assert await store.races.save_race_if("r1", a_record("r1", "ann"), 0, listed("ann"))
    assert await eventually(lambda: _heard_on(heard, "race:r1"))


async def test_channels_added_side_by_side_lose_nothing_said_on_a_channel_already_heard(
    cluster_store: RedisStore,
) -> None:
    """A node follows many races at once (a wave of races, a restart): their channels are
    added side by side, many on primaries no connection listens to yet. A channel already
    subscribed is heard all the while: a listening connection is closed only when it is
    lost, and then the listener is told to read its races again (resync)."""
    store = cluster_store
    heard: list[tuple[str, object]] = []
    store.listener = lambda channel, message: heard.append((channel, message))
    await store.bus.subscribe(["race:r0"])
    said, talking = 0, True

    async def talk() -> None:
        nonlocal said
        while talking:
            said += 1
            await store.bus.publish("race:r0", {"n": said})

    talker = asyncio.create_task(talk())
    others = [f"race:r{i}" for i in range(1, 61)]  # every primary's slots among them
    await asyncio.gather(*(store.bus.subscribe([channel]) for channel in others))
    talking = False
    await talker

    async def all_heard() -> bool:
        return sum(1 for channel, _ in heard if channel == "race:r0") == said

    told = [message for channel, message in heard if channel == ""]
    assert told or await eventually(all_heard), (said, len(heard))


async def _heard_on(heard: list[tuple[str, object]], channel: str) -> bool:
    return any(name == channel for name, _ in heard)


async def test_a_race_s_slot_moved_to_another_primary_is_followed_by_its_writes_and_news(
    cluster_store: RedisStore,
) -> None:
    """An operator moves the slot of a race (as ``redis-cli --cluster reshard`` does: the
    slot marked importing and migrating, its keys MIGRATEd, its new owner told to every
    node): the writer's next batch is answered MOVED by the old primary and goes to the
    new one; the listening connection, unsubscribed from the race's shard channel by the
    old primary, subscribes again at the new one and hears the race's news there."""
    store = cluster_store
    heard = await following_r1(store)
    cluster = store._calls.slots.cluster  # type: ignore[union-attr]
    key = store._keys.race("r1", "racers")
    await move_slot(cluster, cluster.keyslot(key))
    await append(store, ("r1", LogEntry("ann", 2, "a2", 20)))  # MOVED, then written there
    assert [e.action for e in await store.races.racer_log("r1", "ann")] == ["a1", "a2"]
    await hears_r1_again(store, heard)


async def test_a_slot_moved_and_read_again_by_redis_py_takes_the_batches_there_at_once(
    cluster_store: RedisStore,
) -> None:
    """The writer's batches keep each key's primary while the table of slots stays the
    same; once redis-py reads the table again (its own calls after a move), the next batch
    goes to the new owner at once, without a MOVED from the old one."""
    store = cluster_store
    await following_r1(store)  # r1's primary kept by the batches
    cluster = store._calls.slots.cluster  # type: ignore[union-attr]
    slot = cluster.keyslot(store._keys.race("r1", "racers"))
    old = cluster.nodes_manager.get_node_from_slot(slot)
    await move_slot(cluster, slot)
    await cluster.nodes_manager.initialize()  # as redis-py does after a MOVED of its own
    moved = await _moved_replies(cluster, old)
    await append(store, ("r1", LogEntry("ann", 2, "a2", 20)))
    assert await _moved_replies(cluster, old) == moved
    assert [e.action for e in await store.races.racer_log("r1", "ann")] == ["a1", "a2"]


async def _moved_replies(cluster: Any, node: Any) -> int:
    """The MOVED errors ``node`` has answered (``INFO errorstats``)."""
    info = await cluster.execute_command("INFO", "errorstats", target_nodes=node)
    moved = info.get("errorstat_MOVED", {"count": 0})
    return int(moved["count"] if isinstance(moved, dict) else str(moved).split("=")[1])


@pytest.fixture
def replicated_cluster(tmp_path: Path) -> Iterator[ClusterGroup]:
    """Three primaries with a replica each (this test kills one), stopped afterwards."""
    group = start_cluster(tmp_path / "cluster", replicas=1)
    yield group
    group.stop()


async def test_a_primary_killed_is_replaced_by_its_replica_and_the_store_carries_on(
    replicated_cluster: ClusterGroup,
) -> None:
    """kill -9 of the primary owning a race's slot: the cluster promotes its replica
    (cluster-node-timeout 2 s); meanwhile the race's writes are refused as unavailable,
    then the store finds the new primary, writes there, and its listening subscribes again
    there (told to read everything again) and hears the race's news."""
    nodes = cluster_addresses(replicated_cluster.addresses)
    store = open_store(None, prefix="failover:", replication=Replication(cluster=nodes))
    assert isinstance(store, RedisStore)
    heard = await following_r1(store)
    cluster = store._calls.slots.cluster  # type: ignore[union-attr]
    owner = cluster.get_node_from_key(store._keys.race("r1", "racers"))
    assert await cluster.execute_command("WAIT", 1, 2000, target_nodes=owner) == 1
    replicated_cluster.kill(owner.port)
    refused = 0
    deadline = time.monotonic() + 30
    while True:
        try:
            await append(store, ("r1", LogEntry("ann", 2, "a2", 20)))
            break
        except StoreUnavailable:
            refused += 1
            assert time.monotonic() < deadline, "the store never found the new primary"
            await asyncio.sleep(0.2)
    assert refused > 0  # the slot had no primary for a while
    assert cluster.get_node_from_key(store._keys.race("r1", "racers")).port != owner.port
    assert [e.action for e in await store.races.racer_log("r1", "ann")] == ["a1", "a2"]
    await hears_r1_again(store, heard)
    await store.close()


async def following_r1(store: RedisStore) -> list[tuple[str, object]]:
    """``store`` listening to race r1, whose record is saved and Ann's first action logged;
    what it hears (channel, message)."""
    heard: list[tuple[str, object]] = []
    store.listener = lambda channel, message: heard.append((channel, message))
    await store.bus.subscribe(["race:r1"])
    assert await store.races.save_race_if("r1", a_record("r1", "ann"), 0, listed("ann"))
    await append(store, ("r1", LogEntry("ann", 1, "a1", 10)))
    return heard


async def hears_r1_again(store: RedisStore, heard: list[tuple[str, object]]) -> None:
    """``store``'s listening was told to read everything again (subscribed anew), and
    hears r1's news when its record is saved again."""
    assert await eventually(lambda: _heard_on(heard, ""), seconds=20)
    heard.clear()
    assert await store.races.save_race_if("r1", a_record("r1", "ann"), 1, listed("ann"))
    assert await eventually(lambda: _heard_on(heard, "race:r1"))


async def move_slot(cluster: Any, slot: int) -> None:
    """Move ``slot`` with its keys from its primary to another, as ``redis-cli --cluster
    reshard`` does."""
    source = cluster.nodes_manager.get_node_from_slot(slot)
    target = next(node for node in cluster.get_primaries() if node.name != source.name)
    source_id = await cluster.execute_command("CLUSTER MYID", target_nodes=source)
    target_id = await cluster.execute_command("CLUSTER MYID", target_nodes=target)
    await cluster.execute_command(
        "CLUSTER SETSLOT", slot, "IMPORTING", source_id, target_nodes=target
    )
    await cluster.execute_command(
        "CLUSTER SETSLOT", slot, "MIGRATING", target_id, target_nodes=source
    )
    keys = await cluster.execute_command("CLUSTER GETKEYSINSLOT", slot, 1000, target_nodes=source)
    if keys:
        await cluster.execute_command(
            "MIGRATE", target.host, target.port, "", 0, 5000, "KEYS", *keys, target_nodes=source
        )
    for node in cluster.get_primaries():
        await cluster.execute_command("CLUSTER SETSLOT", slot, "NODE", target_id, target_nodes=node)


@pytest.mark.parametrize(
    ("changes", "told"),
    [
        ({"redis_sentinels": "127.0.0.1:26379"}, "not both"),
        ({"redis_wait_replicas": 1}, "--redis-wait-replicas must be 0"),
        ({"redis_url": "unix:///tmp/redis.sock"}, "cannot be a unix:// socket"),
        ({"redis_url": "redis://127.0.0.1:7000/2"}, "only database 0"),
    ],
)
def test_a_cluster_with_what_it_cannot_keep_is_refused_in_one_sentence(
    changes: dict[str, object], told: str
) -> None:
    with pytest.raises(SolraceError, match=told) as refused:
        checked(Settings(redis_cluster="127.0.0.1:7000", **changes))  # type: ignore[arg-type]
    assert str(refused.value).startswith("--redis-cluster: ")


def test_a_cluster_s_addresses_are_read_as_sentinels_are() -> None:
    assert cluster_addresses("10.0.0.1:7000, [::1]:7001") == (("10.0.0.1", 7000), ("::1", 7001))
    with pytest.raises(ValueError, match="names no cluster node"):
        cluster_addresses(" , ")
    with pytest.raises(SolraceError, match="--redis-cluster: 'a:b' "):
        checked(Settings(redis_cluster="a:b"))
