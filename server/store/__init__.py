"""Storage behind one narrow interface: ``Store`` (``base``), kept in this process
(``memory``) or in Redis (``redis_store``, imported only when a Redis URL is given). Its
public face, this module, also names the jobs it writes (``server/handover/jobs.py``) and
the hash a token is kept by (``token_hash``), so that the benchmarks (``bench/``) drive a
store without reaching into the server."""

from __future__ import annotations

from server.handover.jobs import AppendActions, EndRace, Job, RecordDaily, SaveIdentity
from server.store.base import (
    Account,
    Board,
    Entry,
    Fenced,
    History,
    Identity,
    Listed,
    LogGap,
    Relation,
    Store,
    StoreError,
    StoreUnavailable,
    node_channel,
    race_channel,
)
from server.store.memory import MemoryStore
from server.store.records import token_hash
from server.store.replication import (
    SINGLE,
    Replication,
    cluster_addresses,
    sentinel_addresses,
)

__all__ = [
    "Account",
    "AppendActions",
    "Board",
    "EndRace",
    "Entry",
    "Fenced",
    "History",
    "Identity",
    "Job",
    "Listed",
    "LogGap",
    "MemoryStore",
    "RecordDaily",
    "Relation",
    "Replication",
    "SaveIdentity",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "cluster_addresses",
    "node_channel",
    "open_store",
    "race_channel",
    "sentinel_addresses",
    "token_hash",
]


def open_store(
    url: str | None, *, prefix: str = "solrace:", replication: Replication = SINGLE
) -> Store:
    """A ``MemoryStore`` when ``url`` is empty or ``memory:`` and no sentinels nor cluster
    are given, else a ``RedisStore`` for the ``redis://``, ``rediss://`` or ``unix://`` URL
    (keys under ``prefix``), or for the primary ``replication``'s sentinels name, or for the
    Redis Cluster its ``cluster`` nodes belong to (the URL, if any, saying user, password,
    database and TLS)."""
    memory = not url or url in ("memory:", "memory://")
    if memory and not replication.sentinels and not replication.cluster:
        return MemoryStore()
    from server.store.redis_store import RedisStore  # imported here: only Redis users need redis

    return RedisStore(
        url if url and not memory else "redis://", prefix=prefix, replication=replication
    )
