"""The Redis store's races role: records (changed by a compare-and-set script that also
tells the race's channel), listings, the racers' logs (read and claimed by ``RacerLogs``)
and results."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from protocol.race import LogEntry
from server.handover.jobs import Job
from server.handover.moment import now
from server.handover.node_news import RecordChanged, encode, stamped
from server.store.base import StoreError, Wiring, encode_json, race_channel
from server.store.records import Listed
from server.store.redis_calls import RedisCalls, acknowledged_once_replicated
from server.store.redis_keys import RedisKeys
from server.store.redis_logs import RacerLogs
from server.store.redis_scripts import SAVE_RACE_IF, published
from server.store.roles import Races


class RedisRaces(Races):
    def __init__(
        self,
        calls: RedisCalls,
        keys: RedisKeys,
        wiring: Wiring,
        logs: RacerLogs,
        write: Callable[[Sequence[Job]], Awaitable[list[StoreError | None]]],
    ) -> None:
        self._calls, self._keys, self._redis = calls, keys, calls.redis
        self._call, self._pipeline = calls.call, calls.pipeline
        self._wiring = wiring
        self._logs = logs
        self.write = write
        self.prefix = keys.prefix
        self._save_race_if = self._redis.register_script(published(SAVE_RACE_IF, keys.sharded))

    async def load_race(self, race: str) -> dict[str, Any] | None:
        stored = await self._call(self._redis.hmget(self._keys.race(race, "race"), "v", "r"))
        return _record(*stored)

    async def save_race_if(
        self, race: str, record: dict[str, Any], version: int, listed: Listed
    ) -> bool:
        news = encode(RecordChanged(version + 1, self._wiring.node))
        message = encode_json(stamped(news, now().wall_ms))  # sent now: for the pub/sub lag
        channel = self._keys.channel(race_channel(race))
        args: list[str | int] = [version, encode_json(record), channel, message]
        keys = [self._keys.race(race, "race")]
        if not await self._call(self._save_race_if(keys=keys, args=args)):
            return False
        await self._call(self._list(race, listed))
        await self._calls.replicated()  # the WAIT rule
        return True

    async def _list(self, race: str, listed: Listed) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            for kind, on in (("live", listed.live), ("open", listed.open)):
                key = self._keys.key("races", kind)
                pipe.sadd(key, race) if on else pipe.srem(key, race)
            key = self._keys.key("races", "watchable")
            pipe.sadd(key, race) if listed.watchable else pipe.srem(key, race)
            for player in listed.racers:
                key = self._keys.player(player, "races")
                pipe.sadd(key, race) if listed.live else pipe.srem(key, race)
            await pipe.execute()

    async def load_races(self, races: Sequence[str]) -> list[dict[str, Any] | None]:
        if not races:
            return []
        async with self._pipeline() as pipe:
            for race in races:
                pipe.hmget(self._keys.race(race, "race"), "v", "r")
            stored = await pipe.execute()
        return [_record(*pair) for pair in stored]

    async def listed_races(self, kind: str) -> list[str]:
        return sorted(await self._call(self._redis.smembers(self._keys.key("races", kind))))

    async def racer_log(self, race: str, player: str, after_seq: int = 0) -> list[LogEntry]:
        return await self._logs.read(race, player, after_seq)

    async def racers_logged(self, race: str) -> list[str]:
        return sorted(await self._call(self._redis.smembers(self._keys.race(race, "racers"))))

    @acknowledged_once_replicated
    async def claim_racer(self, race: str, player: str, fence: int) -> bool:
        return await self._logs.claim(race, player, fence)

    async def load_result(self, race: str) -> dict[str, Any] | None:
        return _loaded(await self._call(self._redis.get(self._keys.race(race, "result"))))

    async def player_races(self, player: str) -> list[str]:
        key = self._keys.player(player, "races")
        return sorted(await self._call(self._redis.smembers(key)))


def _record(version: str | None, text: str | None) -> dict[str, Any] | None:
    """A race record as stored (a hash of its version and JSON), with its version."""
    if text is None:
        return None
    record: dict[str, Any] = json.loads(text)
    if version is not None:
        record["version"] = int(version)
    return record


def _loaded(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value: dict[str, Any] = json.loads(text)
    return value
