"""Storage behind one narrow interface: ``Store`` (``base``), kept in this process
(``memory``) or in Redis (``redis_store``, imported only when a Redis URL is given)."""

from __future__ import annotations

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

__all__ = [
    "Account",
    "Board",
    "Entry",
    "Fenced",
    "History",
    "Identity",
    "Listed",
    "LogGap",
    "MemoryStore",
    "Relation",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "node_channel",
    "open_store",
    "race_channel",
]


def open_store(url: str | None, *, prefix: str = "solrace:") -> Store:
    """A ``MemoryStore`` when ``url`` is empty or ``memory:``, else a ``RedisStore`` for the
    ``redis://``, ``rediss://`` or ``unix://`` URL (keys under ``prefix``)."""
    if not url or url in ("memory:", "memory://"):
        return MemoryStore()
    from server.store.redis_store import RedisStore  # imported here: only Redis users need redis

    return RedisStore(url, prefix=prefix)
