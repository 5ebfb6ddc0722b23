"""WAIT N (``--redis-wait-replicas``): a batch of the writer's jobs counts as written only
once N replicas have it, asked in the same round trip; fewer within the wait is
``StoreUnavailable`` for the whole batch (the writer writes it again, nothing is answered),
and a Redis that answers it is a replica (a demoted primary) has its connection closed, so
the next batch asks where the primary is. Real redis-servers: a primary and a replica
(``--replicaof``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as redis
from redis_server import RedisServer
from store_contract import save

from protocol.race import LogEntry
from server.store import AppendActions, StoreUnavailable
from server.store.redis_store import RedisStore

RACE, PLAYER = "r1", "p1"
Pair = tuple[RedisServer, RedisServer]


def actions(first: int, last: int) -> AppendActions:
    entries = tuple(LogEntry(PLAYER, seq, f"a{seq}", 100 * seq) for seq in range(first, last + 1))
    return AppendActions(RACE, entries, 1, first - 1)


async def refused_while_paused(pair: Pair, attempt: Callable[[], Awaitable[object]]) -> None:
    """``attempt`` fails while the replica is paused (it confirms nothing); resumed after,
    and caught up."""
    primary, replica = pair
    replica.pause()
    with pytest.raises(StoreUnavailable, match="only 0 of the 1 replicas asked for confirmed"):
        await attempt()
    await resumed(primary, replica)


async def resumed(primary: RedisServer, replica: RedisServer) -> None:
    """Resume the replica and return once it has confirmed all the primary holds (on a
    busy machine a resumed replica has taken longer than a store's 1 s wait to answer)."""
    replica.resume()
    client = redis.from_url(primary.url)
    try:
        await client.incr("caught-up")  # WAIT counts up to this connection's last write
        assert await client.execute_command("WAIT", 1, 10_000) == 1
    finally:
        await client.aclose()


async def logged(store: RedisStore) -> list[int]:
    return [entry.seq for entry in await store.races.racer_log(RACE, PLAYER)]


async def test_a_write_waited_for_is_on_the_replica_once_it_is_acknowledged(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    primary, replica = pair
    store = stores(primary.url, wait_replicas=1)
    assert await store.write([actions(1, 3)]) == [None]
    assert await logged(stores(replica.url)) == [1, 2, 3]  # read at once: nothing to wait for


async def test_a_write_no_replica_confirms_within_the_wait_fails_and_counts_once_one_does(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    primary, replica = pair
    store = stores(primary.url, wait_replicas=1)
    await refused_while_paused(pair, lambda: store.write([actions(1, 2)]))
    assert await store.write([actions(1, 2)]) == [None]  # written again: counted now
    assert await logged(stores(replica.url)) == [1, 2]


async def test_asking_for_more_replicas_than_there_are_fails_every_write(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    primary, _ = pair
    store = stores(primary.url, wait_replicas=2)
    with pytest.raises(StoreUnavailable, match="only 1 of the 2 replicas"):
        await store.write([actions(1, 1)])


async def test_without_waiting_a_write_counts_once_the_primary_has_it(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    primary, replica = pair
    replica.pause()
    assert await stores(primary.url).write([actions(1, 1)]) == [None]


async def test_resends_alone_on_a_new_connection_still_wait_for_the_replicas(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    """Entries already on the primary (another node's write, acknowledged without waiting)
    written again are refused as already there and write nothing: the batch's mark still
    makes WAIT cover them, so they do not count while the replica lacks them."""
    primary, replica = pair
    replica.pause()
    assert await stores(primary.url).write([actions(1, 2)]) == [None]
    waiting = stores(primary.url, wait_replicas=1)
    with pytest.raises(StoreUnavailable, match="replicas"):
        await waiting.write([actions(1, 2)])
    await resumed(primary, replica)
    assert await waiting.write([actions(1, 2)]) == [None]


async def test_a_replica_s_read_only_answer_closes_the_batch_connection(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    """A primary demoted by a failover answers READONLY: the batch is not written, and the
    next one opens a connection again (asking the sentinels, with them, where to)."""
    _, replica = pair
    store = stores(replica.url)
    with pytest.raises(StoreUnavailable, match="READONLY"):
        errors = await store.write([actions(1, 1)])
        raise errors[0] or AssertionError("a replica took a write")
    batches = store._sender.batches
    assert batches is not None and batches.transport is None


async def test_a_race_record_waited_for_is_on_the_replica_once_it_is_saved(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    """Race-level steps (join, start, finish, resign: a compare-and-set of the record) keep
    the rule too: saved means the replicas asked for have it."""
    primary, replica = pair
    assert await save(stores(primary.url, wait_replicas=1), RACE, PLAYER, version=0)
    loaded = await stores(replica.url).races.load_race(RACE)
    assert loaded is not None and loaded["version"] == 1


async def test_a_race_record_no_replica_confirms_is_not_saved_as_far_as_its_step_knows(
    pair: Pair, stores: Callable[..., RedisStore]
) -> None:
    primary, _ = pair
    store = stores(primary.url, wait_replicas=1)
    await refused_while_paused(pair, lambda: save(store, RACE, PLAYER, version=0))
    # it did go in: the step finds version 1 stored, reads it and goes on from there
    assert not await save(store, RACE, PLAYER, version=0)
    assert await save(store, RACE, PLAYER, version=1)
