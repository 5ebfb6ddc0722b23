"""The Redis store's accounts role: tokens' identities, accounts (and their look-alike
claims), ratings (rated in a watched transaction), players' past and the addresses they
were seen on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from redis.exceptions import WatchError

from protocol.accounts import username_key, username_skeleton
from protocol.ranking import Run
from protocol.ratings import DEFAULT, Rating, race_updates
from server.store.account import Account
from server.store.base import RATINGS_KEPT, StoreError, any_shared, encode_json, relations_of
from server.store.records import History, Identity, Relation
from server.store.redis_calls import RedisCalls, acknowledged_once_replicated
from server.store.redis_keys import RedisKeys
from server.store.redis_scripts import CREATE_ACCOUNT
from server.store.roles import Accounts

RATE_TRIES = 10  # a race's rating transaction, when other writes to its keys interleave


class RedisAccounts(Accounts):
    def __init__(self, calls: RedisCalls, keys: RedisKeys) -> None:
        self._calls, self._keys, self._redis = calls, keys, calls.redis
        self._call, self._translated, self._pipeline = calls.call, calls.translated, calls.pipeline
        self._create_account = self._redis.register_script(CREATE_ACCOUNT)

    async def identity(self, token_hash: str) -> Identity | None:
        found = await self._call(self._redis.hgetall(self._keys.key("token", token_hash)))
        if not found:
            return None
        return Identity(
            found["player"], found["name"], found.get("account") or None, bool(found.get("played"))
        )

    @acknowledged_once_replicated
    async def revoke_tokens(self, player: str, token_hashes: Sequence[str] | None) -> None:
        listed = self._keys.player(player, "tokens")
        if token_hashes is None:
            token_hashes = sorted(await self._call(self._redis.smembers(listed)))
        keys = [self._keys.key("token", token) for token in token_hashes]
        if not keys:
            return
        async with self._pipeline() as pipe:
            for key in keys:
                pipe.hget(key, "player")
            owners = await pipe.execute()
        theirs = [key for key, owner in zip(keys, owners, strict=True) if owner == player]
        async with self._pipeline() as pipe:  # only the player's own tokens are forgotten
            for key in theirs:  # one key a DEL: each token is in a slot of its own
                pipe.delete(key)
            pipe.srem(listed, *token_hashes)
            await pipe.execute()

    @acknowledged_once_replicated
    async def create_account(self, account: Account) -> bool:
        name = username_key(account.username)
        key = self._keys.key("account", name)
        # the look-alike claim first (its own key: another hash slot in a cluster)
        lookalike = self._keys.key("lookalike", username_skeleton(name))
        claimed = await self._call(self._redis.set(lookalike, name, nx=True))
        if not claimed and await self._call(self._redis.get(lookalike)) != name:
            return False  # another account reads like this one
        fields = ["player", account.player, "username", account.username]
        created = await self._call(
            self._create_account(
                keys=[key],
                args=[*fields, "hash", account.password_hash, "created_ms", account.created_ms],
            )
        )
        if created:  # the player's own key: its username (profiles, hello)
            player_key = self._keys.player(account.player, "account")
            await self._call(self._redis.set(player_key, account.username))
        return bool(created)

    async def account(self, username: str) -> Account | None:
        found = await self._call(
            self._redis.hgetall(self._keys.key("account", username_key(username)))
        )
        if not found:
            return None
        created = int(found.get("created_ms") or 0)
        closed = found.get("closed") == "1"
        return Account(found["player"], found["username"], found["hash"], created, closed)

    @acknowledged_once_replicated
    async def set_password_hash(self, username: str, password_hash: str) -> None:
        key = self._keys.key("account", username_key(username))
        await self._call(self._redis.hset(key, "hash", password_hash))

    async def account_of(self, player: str) -> str | None:
        found = await self._call(self._redis.get(self._keys.player(player, "account")))
        return str(found) if found is not None else None

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, Rating]:
        if not players:
            return {}
        keys = [self._keys.rating(game, player) for player in players]
        stored = await self._call(self._redis.mget(keys))
        return {
            player: Rating.from_dict(json.loads(value))
            for player, value in zip(players, stored, strict=True)
            if value is not None
        }

    @acknowledged_once_replicated
    async def rate_race(
        self, game: str, race: str, runs: Sequence[Run], now_ms: int, keep_s: int
    ) -> dict[str, tuple[Rating, Rating]] | None:
        """One optimistic transaction: the ratings and the race's mark are watched, read,
        the new ratings computed here, and written only if none of them changed meanwhile
        (another race of the same player ending at that moment: then again)."""
        players = [run.player for run in runs]
        keys = [self._keys.rating(game, player) for player in players]
        mark = self._keys.rated(game, race)
        for _ in range(RATE_TRIES):
            async with (
                self._translated(),
                asyncio.timeout(self._calls.deadline),
                self._redis.pipeline(transaction=True) as pipe,
            ):
                try:
                    await pipe.watch(mark, *keys)
                    if await pipe.exists(mark):
                        return None
                    stored = await pipe.mget(keys)
                    before = {
                        player: Rating.from_dict(json.loads(value)) if value else DEFAULT
                        for player, value in zip(players, stored, strict=True)
                    }
                    after = race_updates(runs, before, now_ms)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    for player, rating in after.items():
                        pipe.set(self._keys.rating(game, player), encode_json(rating.as_dict()))
                        shown = self._keys.rating(game, player, "history")
                        pipe.rpush(shown, encode_json([now_ms, round(rating.rating)]))
                        pipe.ltrim(shown, -RATINGS_KEPT, -1)
                    pipe.set(mark, 1, ex=keep_s)
                    await pipe.execute()
                except WatchError:  # a watched key changed: read them again
                    continue
            return {player: (before[player], rating) for player, rating in after.items()}
        raise StoreError(f"race {race}'s ratings kept changing under it ({RATE_TRIES} tries)")

    async def was_rated(self, game: str, race: str) -> bool:
        return bool(await self._call(self._redis.exists(self._keys.rated(game, race))))

    async def rating_history(self, game: str, player: str) -> list[tuple[int, int]]:
        kept = await self._call(
            self._redis.lrange(self._keys.rating(game, player, "history"), 0, -1)
        )
        return [(at_ms, rating) for at_ms, rating in map(json.loads, kept)]

    async def history(self, player: str) -> History:
        raced, order, stats, days = self._keys.history(player)
        async with self._pipeline() as pipe:
            pipe.zrevrange(order, 0, -1)
            pipe.hgetall(raced)
            pipe.hgetall(stats)
            pipe.zrange(days, 0, -1)
            races, entries, counts, day_list = await pipe.execute()
        recent = [json.loads(entries[race]) for race in races if race in entries]

        def per_game(suffix: str) -> dict[str, int]:
            return {k.removesuffix(suffix): int(v) for k, v in counts.items() if k.endswith(suffix)}

        return History(
            recent,
            per_game(":played"),
            per_game(":won"),
            list(day_list),
            per_game(":finished"),
            per_game(":time_ms"),
        )

    @acknowledged_once_replicated
    async def note_address(self, day: str, player: str, address: str) -> None:
        key = self._keys.key("seen", day, player)
        async with self._pipeline() as pipe:
            pipe.sadd(key, address)
            pipe.expire(key, 2 * 86_400)
            await pipe.execute()

    async def shared_address(self, day: str, players: Sequence[str]) -> bool:
        async with self._pipeline() as pipe:
            for player in players:
                pipe.smembers(self._keys.key("seen", day, player))
            found = await pipe.execute()
        return any_shared([set(addresses) for addresses in found])

    @acknowledged_once_replicated
    async def note_sighting(
        self, player: str, how: str, value: str, at_ms: int, keep_ms: int
    ) -> None:
        """Two hashes, each forgotten ``keep_ms`` after its last sighting: the player's
        sightings and the sighting's accounts (``related`` passes over older fields)."""
        sighting = f"{how} {value}"
        mine, theirs = self._keys.player(player, "sightings"), self._keys.key("seen-by", sighting)
        async with self._pipeline() as pipe:
            pipe.hset(mine, sighting, at_ms)
            pipe.pexpire(mine, keep_ms)
            pipe.hset(theirs, player, at_ms)
            pipe.pexpire(theirs, keep_ms)
            await pipe.execute()

    async def related(self, player: str, since_ms: int) -> list[Relation]:
        mine = await self._call(self._redis.hgetall(self._keys.player(player, "sightings")))
        recent = {sighting: int(at_ms) for sighting, at_ms in mine.items()}
        sightings = sorted(sighting for sighting, at_ms in recent.items() if at_ms >= since_ms)
        if not sightings:
            return []
        async with self._pipeline() as pipe:
            for sighting in sightings:
                pipe.hgetall(self._keys.key("seen-by", sighting))
            found = await pipe.execute()
        seen_by = {
            sighting: {other: int(at_ms) for other, at_ms in accounts.items()}
            for sighting, accounts in zip(sightings, found, strict=True)
        }
        return relations_of(player, recent, seen_by, since_ms)
