"""The figures the alert rules read (deploy/prometheus/alerts.yml) mean what they say, on a
real server's ``GET /metrics``: the event loop's lag, the pub/sub delivery lag between two
nodes, whether the store answers, its replicas and the reviews waiting for a moderator."""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from collections.abc import Callable

from harness import player, running_server, winning_actions
from redis_server import RedisServer
from test_metrics import scrape

from server.carry.store_watch import StoreWatch
from server.store import MemoryStore, open_store

GAME, DEAL = "mount_sunflower", 18


def above(
    metrics: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, le: str
) -> float:
    """How many observations of histogram ``name`` were above the bucket bound ``le``."""
    return metrics[(f"{name}_count", ())] - metrics[(f"{name}_bucket", (("le", le),))]


async def test_a_loop_held_for_300_ms_shows_as_a_lag_of_at_least_250_ms() -> None:
    async with running_server() as server:
        name = "solrace_event_loop_lag_seconds"
        metrics = await asyncio.to_thread(scrape, server.port)
        for _ in range(100):  # the probe's first wake (50 ms)
            if metrics[(f"{name}_count", ())] > 0:
                break
            await asyncio.sleep(0.05)
            metrics = await asyncio.to_thread(scrape, server.port)
        assert metrics[(f"{name}_count", ())] > 0
        assert above(metrics, name, "0.25") == 0  # a loop nobody holds wakes it on time
        time.sleep(0.3)  # holds the event loop the server runs on
        await asyncio.sleep(0.2)  # the probe wakes (late) and observes it
        metrics = await asyncio.to_thread(scrape, server.port)
        assert above(metrics, name, "0.25") >= 1
        assert metrics[(f"{name}_sum", ())] >= 0.25


async def test_news_heard_from_another_node_is_observed_as_pubsub_lag(redis_url: str) -> None:
    prefix = f"test:{uuid.uuid4().hex}:"
    stores = [open_store(redis_url, prefix=prefix) for _ in "ab"]
    try:
        async with (
            running_server(stores[0], countdown_ms=0) as a,
            running_server(stores[1], countdown_ms=0) as b,
        ):
            ann, bob = await player(a, "Ann"), await player(b, "Bob")
            race = (await ann.create_race(GAME, deal=DEAL, max_players=2))["race"]
            await bob.join_race(race)
            await ann.next_event("started")
            for action in winning_actions(GAME, DEAL)[:3]:
                await ann.act(race, action)  # node b follows the race: it hears Ann's log
            name = "solrace_pubsub_lag_seconds"
            heard = await asyncio.to_thread(scrape, b.port)
            for _ in range(100):
                if heard[(f"{name}_count", ())] >= 3:
                    break
                await asyncio.sleep(0.05)
                heard = await asyncio.to_thread(scrape, b.port)
            assert heard[(f"{name}_count", ())] >= 3  # its three log messages, at least
            assert 0 <= heard[(f"{name}_sum", ())] < 3 * 5.0  # on one machine: quick
            await ann.close()
            await bob.close()
    finally:
        await stores[0].purge()
        for store in stores:
            await store.close()


async def test_the_store_watch_reads_redis_up_its_online_replicas_and_waiting_reviews(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    primary = redis_server_factory()
    store = open_store(primary.url, prefix="watch:")
    watch = StoreWatch(store)
    try:
        await watch.read()
        assert watch.readings() == {"store_up": 1.0, "store_replicas": 0.0, "fair_play_waiting": 0}
        redis_server_factory("--replicaof", "127.0.0.1", str(primary.port))
        for _ in range(100):  # the replica's first sync
            await watch.read()
            if watch.replicas == 1:
                break
            await asyncio.sleep(0.05)
        assert watch.readings()["store_replicas"] == 1
        primary.kill()
        await watch.read()
        assert watch.readings()["store_up"] == 0
        assert watch.readings()["store_replicas"] == 1  # the last reading stands
    finally:
        await store.close()


async def test_a_replica_promoted_is_a_failover_seen_once_and_a_restart_is_none(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    primary = redis_server_factory("--appendonly", "yes")
    replica = redis_server_factory("--replicaof", "127.0.0.1", str(primary.port))
    failovers: list[None] = []
    on_primary = open_store(primary.url, prefix="watch:")
    on_replica = open_store(replica.url, prefix="watch:")
    watching_primary = StoreWatch(on_primary, lambda: failovers.append(None))
    watching_replica = StoreWatch(on_replica, lambda: failovers.append(None))
    try:
        await watching_primary.read()
        await watching_replica.read()
        primary.kill()
        primary.start()  # the same primary, back from its own files: no failover
        for watch in (watching_primary, watching_primary, watching_replica):  # every 5 s
            await watch.read()
        assert watching_primary.up and failovers == []
        await asyncio.to_thread(
            subprocess.run,
            ["redis-cli", "-p", str(replica.port), "REPLICAOF", "NO", "ONE"],
            check=True,
        )
        await watching_replica.read()
        await watching_replica.read()
        assert failovers == [None]
    finally:
        await on_primary.close()
        await on_replica.close()


async def test_the_memory_store_is_up_with_no_replicas_to_count() -> None:
    watch = StoreWatch(MemoryStore())
    await watch.read()
    assert watch.readings() == {"store_up": 1.0, "fair_play_waiting": 0.0}


async def test_a_live_server_exports_the_store_s_state_and_a_failover_counter(
    redis_url: str,
) -> None:
    store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    try:
        async with running_server(store) as server:
            metrics = await asyncio.to_thread(scrape, server.port)
            assert metrics[("solrace_store_up", ())] == 1
            assert metrics[("solrace_store_replicas", ())] == 0
            assert metrics[("solrace_fair_play_waiting", ())] == 0
            assert metrics[("solrace_store_failovers_total", ())] == 0
    finally:
        await store.purge()
        await store.close()
