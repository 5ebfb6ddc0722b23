"""The Redis store's bus role (channels, nodes alive, which node serves whom, event
generations, leases), and its pairing and limits roles."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from server.store.base import encode_json
from server.store.redis_calls import RedisCalls
from server.store.redis_keys import RedisKeys
from server.store.redis_listen import Listening
from server.store.redis_scripts import JOIN_POOL, LEASE, LEAVE_POOL, RELEASE, TAKE_PAIR
from server.store.roles import Bus, Limits, Pairing, Replication

KEEP_POOL_S = 3600  # where a player waits is forgotten after an hour (the pairer drops them)
KEEP_GENERATIONS_S = 400 * 86_400  # a player's event generation counter, after its last use


class RedisBus(Bus):
    def __init__(self, calls: RedisCalls, keys: RedisKeys, listening: Listening) -> None:
        self._calls, self._keys, self._redis = calls, keys, calls.redis
        self._call, self._pipeline = calls.call, calls.pipeline
        self._listening = listening
        self.prefix = keys.prefix
        self._lease = self._redis.register_script(LEASE)
        self._release = self._redis.register_script(RELEASE)

    async def subscribe(self, channels: Sequence[str]) -> None:
        await self._listening.subscribe(channels)

    async def unsubscribe(self, channels: Sequence[str]) -> None:
        await self._listening.unsubscribe(channels)

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        named, text = self._keys.channel(channel), encode_json(message)
        if self._keys.sharded:  # the channel's slot's primary tells its subscribers
            await self._call(self._redis.spublish(named, text))
        else:
            await self._call(self._redis.publish(named, text))

    async def node_alive(self, node: str, ttl_ms: int) -> None:
        async with self._pipeline() as pipe:
            pipe.sadd(self._keys.key("nodes"), node)
            pipe.set(self._keys.key("node", node, "alive"), "1", px=ttl_ms)
            await pipe.execute()

    async def nodes(self) -> dict[str, bool]:
        known = sorted(await self._call(self._redis.smembers(self._keys.key("nodes"))))
        if not known:
            return {}
        alive = await self._calls.mget([self._keys.key("node", node, "alive") for node in known])
        return {node: flag is not None for node, flag in zip(known, alive, strict=True)}

    async def take_player(self, player: str, node: str) -> str | None:
        async with self._pipeline() as pipe:
            key = self._keys.player(player, "node")
            pipe.set(key, node, get=True, ex=KEEP_GENERATIONS_S)
            pipe.sadd(self._keys.key("node", node, "players"), player)
            before, _ = await pipe.execute()
        return str(before) if before is not None else None

    async def player_node(self, player: str) -> str | None:
        node = await self._call(self._redis.get(self._keys.player(player, "node")))
        return str(node) if node is not None else None

    async def node_players(self, node: str) -> list[str]:
        players = sorted(
            await self._call(self._redis.smembers(self._keys.key("node", node, "players")))
        )
        if not players:
            return []
        where = await self._calls.mget([self._keys.player(p, "node") for p in players])
        return [p for p, there in zip(players, where, strict=True) if there == node]

    async def forget_node(self, node: str) -> None:
        async with self._pipeline() as pipe:
            pipe.srem(self._keys.key("nodes"), node)
            pipe.delete(self._keys.key("node", node, "players"))  # one key a DEL: two slots
            pipe.delete(self._keys.key("node", node, "alive"))
            await pipe.execute()

    async def next_event_generation(self, player: str) -> int:
        key = self._keys.player(player, "gen")
        return int(await self._call(incr_living(self._redis, key)))

    async def claim_lease(self, name: str, holder: str, ttl_ms: int) -> bool:
        key = self._keys.key("lease", name)
        return bool(await self._call(self._lease(keys=[key], args=[holder, ttl_ms])))

    async def clock_ms(self) -> int | None:
        seconds, microseconds = await self._call(self._redis.time())
        return int(seconds) * 1000 + int(microseconds) // 1000

    async def replication(self) -> Replication | None:
        if self._calls.slots is not None:
            return None  # a cluster's primaries each have their own (CLUSTER NODES)
        info = await self._call(self._redis.info("replication"))
        online = sum(
            1
            for name, replica in info.items()
            if name.startswith("slave") and isinstance(replica, dict)
            if replica.get("state") == "online"
        )
        return Replication(online, str(info["master_replid"]), str(info["master_replid2"]))

    async def release_lease(self, name: str, holder: str) -> None:
        await self._call(self._release(keys=[self._keys.key("lease", name)], args=[holder]))


class RedisPairing(Pairing):
    def __init__(self, calls: RedisCalls, keys: RedisKeys) -> None:
        self._keys, self._redis, self._call = keys, calls.redis, calls.call
        self._join_pool = self._redis.register_script(JOIN_POOL)
        self._leave_pool = self._redis.register_script(LEAVE_POOL)
        self._take_pair = self._redis.register_script(TAKE_PAIR)

    async def join_pool(self, game: str, entry: dict[str, Any]) -> str | None:
        keys = self._keys.pool(game, entry["player"])
        args = [entry["player"], encode_json(entry), game, KEEP_POOL_S]
        waiting_in = await self._call(self._join_pool(keys=keys, args=args))
        return str(waiting_in) if waiting_in else None

    async def leave_pool(self, player: str) -> str | None:
        marker = self._keys.pool("", player)[1]
        game = await self._call(self._redis.get(marker))
        if game is None:
            return None
        left = await self._call(self._leave_pool(keys=self._keys.pool(game, player), args=[player]))
        return str(game) if left else None

    async def pool(self, game: str) -> list[dict[str, Any]]:
        entries = await self._call(self._redis.hvals(self._keys.pool(game, "")[0]))
        return [json.loads(entry) for entry in entries]

    async def take_pair(self, game: str, first: str, second: str) -> bool:
        keys = [*self._keys.pool(game, first), self._keys.pool(game, second)[1]]
        return bool(await self._call(self._take_pair(keys=keys, args=[first, second])))


class RedisLimits(Limits):
    def __init__(self, calls: RedisCalls, keys: RedisKeys) -> None:
        self._keys, self._redis, self._call = keys, calls.redis, calls.call

    async def count_attempt(self, scope: str, window_s: int) -> int:
        window = int(time.time()) // window_s
        key = self._keys.key("attempts", scope, str(window))
        return int(await self._call(incr_living(self._redis, key, window_s)))

    async def failures(self, scope: str) -> int:
        return int(await self._call(self._redis.get(self._keys.key("failures", scope))) or 0)

    async def note_failure(self, scope: str, keep_s: int) -> int:
        key = self._keys.key("failures", scope)
        return int(await self._call(incr_living(self._redis, key, keep_s)))

    async def clear_failures(self, scope: str) -> None:
        await self._call(self._redis.delete(self._keys.key("failures", scope)))


async def incr_living(redis: Any, key: str, keep_s: int = KEEP_GENERATIONS_S) -> int:
    """INCR, then keep the key ``keep_s`` more seconds, in one transaction; the count."""
    async with redis.pipeline(transaction=True) as pipe:
        pipe.incr(key)
        pipe.expire(key, keep_s)
        result: list[Any] = await pipe.execute()
        return int(result[0])
