"""The Redis store: the ``Store`` interface on ``redis.asyncio``, shared by server processes.

Leaderboards are sorted sets (score = ``run.score()``, member = ``run.member()``) beside a
hash of whole run records; every update that touches more than one key is one Lua script,
so it is atomic. Keys carry a prefix and a hash tag per day, game or race, so each script's
keys share one cluster slot; they are named in ``server/store/redis_keys.py``
(``docs/storage.md`` lists every key).

This module makes the store's calls, most of them one command or one script, and hands
what is more to parts in modules of their own: ``RedisCalls`` (``redis_calls``) owns the
redis-py client, the deadline every call keeps and the store errors made of Redis'
failures; ``RacerLogs`` (``redis_logs``) reads and claims the racers' action logs;
``BatchSender`` (``redis_sender``) sends the writer's batches, built as commands without
I/O by a ``BatchBuilder`` (``redis_batch``), on a hiredis connection of the store's own
(``redis_wire``); ``Listening`` (``redis_listen``) hears the channels subscribed to on
another. Only the ``redis_*`` modules of this package import ``redis``.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.handover.jobs import Job
from server.store.base import Store, StoreError
from server.store.redis_accounts import RedisAccounts
from server.store.redis_arenas import RedisArenas
from server.store.redis_batch import BatchBuilder, Shas
from server.store.redis_bus import RedisBus, RedisLimits, RedisPairing
from server.store.redis_calls import CALL_DEADLINE_S, RedisCalls, acknowledged_once_replicated
from server.store.redis_days import RedisDays
from server.store.redis_keys import RedisKeys
from server.store.redis_listen import Listening
from server.store.redis_logs import RacerLogs
from server.store.redis_moderation import RedisModeration
from server.store.redis_races import RedisRaces
from server.store.redis_scripts import (
    APPEND_LOG,
    END_RACE,
    FIRST_WRITER,
    RECORD_DAILY,
    RECORD_HISTORY,
    published,
)
from server.store.redis_sender import BatchSender
from server.store.replication import SINGLE, Replication

KEEP_DAILY_DAYS = 400  # a day's deal, claims and board live this long after their last write


class RedisStore(Store):
    """The store in Redis at ``url``, every key under ``prefix``; with sentinels
    (``replication``), in the primary they name, with ``url``'s user, password, database
    and TLS, and its writes counted once the replicas asked for have them.

    Commands are retried by redis-py on a lost or refused connection (exponential backoff, a
    few tries); a call that still fails, or takes longer than ``deadline`` seconds, raises
    ``StoreUnavailable``.
    """

    def __init__(
        self,
        url: str,
        prefix: str = "solrace:",
        *,
        deadline: float = CALL_DEADLINE_S,
        keep_daily_days: int = KEEP_DAILY_DAYS,
        replication: Replication = SINGLE,
    ):
        self._keys = RedisKeys(prefix, sharded=bool(replication.cluster))  # no braces
        self.prefix = prefix
        self._keep_daily_s = keep_daily_days * 86_400  # a day's keys, after their last write
        mark = self._keys.key("replicated")
        calls = self._calls = RedisCalls(url, deadline, replication, mark)
        self._redis = calls.redis
        # the store's own calls, by their short names
        self._call, self._translated, self._pipeline = calls.call, calls.translated, calls.pipeline
        self._first_writer = self._redis.register_script(FIRST_WRITER)
        scripts = tuple(  # called by hash in the writer's batches
            self._redis.register_script(script)
            for script in (
                published(APPEND_LOG, self._keys.sharded),
                RECORD_DAILY,
                END_RACE,
                RECORD_HISTORY,
            )
        )
        append_log, record_daily, end_race, record_history = (script.sha for script in scripts)
        shas = Shas(
            append_log=append_log,
            end_race=end_race,
            record_daily=record_daily,
            record_history=record_history,
        )
        builder = BatchBuilder(self._keys, shas, self._keep_daily_s)
        logs = RacerLogs(calls, self._keys)
        self._sender = BatchSender(calls, builder, scripts, logs, replication)
        self._listening = Listening(self, calls, self._keys)
        self.days = RedisDays(calls, self._keys, builder, self._keep_daily_s)
        self.races = RedisRaces(calls, self._keys, self, logs, self.write)
        self.bus = RedisBus(calls, self._keys, self._listening)
        self.accounts = RedisAccounts(calls, self._keys)
        self.pairing = RedisPairing(calls, self._keys)
        self.limits = RedisLimits(calls, self._keys)
        self.moderation = RedisModeration(calls, self._keys, self.accounts)
        self.arenas = RedisArenas(calls, self._keys)

    # daily challenge

    @acknowledged_once_replicated
    async def daily_secret(self, proposed: str) -> str:
        key = self._keys.key("daily-secret")
        return str(await self._call(self._first_writer(keys=[key], args=[proposed, 0])))

    @acknowledged_once_replicated
    async def signing_key(self, proposed: str) -> str:
        key = self._keys.key("signing-key")
        return str(await self._call(self._first_writer(keys=[key], args=[proposed, 0])))

    @acknowledged_once_replicated
    async def publish_key(self, key_id: str, public_hex: str) -> dict[str, str]:
        key = self._keys.key("signing-keys")
        await self._call(self._redis.hsetnx(key, key_id, public_hex))
        published: dict[str, str] = await self._call(self._redis.hgetall(key))
        return published

    async def write(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        return await self._sender.write(jobs, self.node)

    async def ping(self) -> bool:
        try:
            return bool(await self._call(self._redis.ping()))
        except StoreError:
            return False

    async def close(self) -> None:
        await self._listening.close()
        self._sender.close()
        await self._calls.close()

    async def purge(self) -> int:
        """Delete every key under this store's prefix (for tests and tear-downs); returns
        how many were deleted."""
        deleted = 0
        async with self._translated():
            async for key in self._redis.scan_iter(match=_glob_escape(self.prefix) + "*"):
                deleted += await self._redis.delete(key)
        return deleted


def _glob_escape(text: str) -> str:
    return "".join("\\" + char if char in "*?[]\\" else char for char in text)
