"""The Redis store's racer logs: each racer's action log in a race is a stream whose entry
ids are ``<fence>-<seq>``, and Redis refuses an id not above the stream's last.

``RacerLogs`` reads a log back from its end (``read``: only the entries above a seq, a
page at a time), claims a log for a fence (``claim``: a ``claim`` entry at ``<fence>-0``
and the racer in the race's ``racers`` set; False when a higher fence holds the log), and
tells, when a batch's entry was refused as not above the last, a resend (None) from a
racer taken over by another node (``fenced``: the log holds a higher fence). The entries
themselves are appended by the writer's batches (``APPEND_LOG``, called by the commands
``redis_batch`` builds).
"""

from __future__ import annotations

import asyncio

from redis.exceptions import ResponseError

from protocol.race import LogEntry
from server.handover.jobs import AppendActions
from server.store.base import Fenced
from server.store.redis_calls import RedisCalls
from server.store.redis_keys import RedisKeys

LOG_PAGE = 256  # log entries read per XREVRANGE


class RacerLogs:
    """The racers' logs of the store whose calls are ``calls`` and keys ``keys``."""

    def __init__(self, calls: RedisCalls, keys: RedisKeys) -> None:
        self.calls = calls
        self.keys = keys

    async def read(self, race: str, player: str, after_seq: int = 0) -> list[LogEntry]:
        """Read back from the end until ``after_seq`` (following a race, only the newest
        few entries are wanted)."""
        key = self.keys.log(race, player)
        found: list[LogEntry] = []
        top = "+"
        while True:
            page = await self.calls.call(self.calls.redis.xrevrange(key, max=top, count=LOG_PAGE))
            for entry_id, fields in page:
                if "a" not in fields:  # a claim, not an action
                    continue
                seq = int(entry_id.split("-")[1])
                if seq <= after_seq:
                    return found[::-1]
                found.append(LogEntry(player, seq, fields["a"], int(fields["t"])))
            if len(page) < LOG_PAGE:
                return found[::-1]
            top = "(" + page[-1][0]

    async def claim(self, race: str, player: str, fence: int) -> bool:
        key = self.keys.log(race, player)
        async with self.calls.translated(), asyncio.timeout(self.calls.deadline):
            try:
                await self.calls.redis.xadd(key, {"claim": "1"}, id=f"{fence}-0")
            except ResponseError as refused:
                if "equal or smaller" not in str(refused):
                    raise
                return await self.top_fence(key) <= fence
            await self.calls.redis.sadd(self.keys.race(race, "racers"), player)
        return True

    async def fenced(self, job: AppendActions) -> Fenced | None:
        """An entry id was refused as not above the log's last: a resend (None) unless
        the log holds a higher fence (another node took the racer over)."""
        for player in {entry.player for entry in job.entries}:
            if await self.top_fence(self.keys.log(job.race, player)) > job.fence:
                return Fenced(f"{player} was taken over by another node in race {job.race}")
        return None

    async def top_fence(self, key: str) -> int:
        """The fence of a log's newest entry (0 for an empty log)."""
        newest = await self.calls.redis.xrevrange(key, count=1)
        return int(str(newest[0][0]).split("-")[0]) if newest else 0
