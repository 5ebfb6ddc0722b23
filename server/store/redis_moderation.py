"""The moderation role of the Redis store (``server/store/moderation.py``).

A race's review is one string key in the race's hash slot (``race:{R}:review``); the
flagged list is a sorted set by time, a hint only: a review's own status decides, and
entries whose review is settled or gone are dropped as they are read. The audit log is a
list, newest first, kept for good. Each change that must be atomic is one script on keys
of one slot; a rating is taken back in a watched transaction, as ``rate_race`` rates.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

from redis.exceptions import WatchError

from protocol.accounts import username_key, username_skeleton
from protocol.games import GAMES
from protocol.ranking import Run
from protocol.ratings import DEFAULT, Rating
from server.store.account import Account
from server.store.base import StoreError, encode_json, run_from_json, run_json
from server.store.moderation import Moderation, ordered, renamed, taken_back
from server.store.redis_accounts import RedisAccounts
from server.store.redis_calls import RedisCalls, acknowledged_once_replicated
from server.store.redis_keys import RedisKeys

TRIES = 10  # a watched transaction, when other writes to its keys interleave

# KEYS[1] the review; ARGV[1] the status expected, ARGV[2] the new review, ARGV[3] its
# time to live (0: for good). 1 when it was replaced.
SETTLE = """
local text = redis.call('GET', KEYS[1])
if not text or cjson.decode(text)['status'] ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if tonumber(ARGV[3]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return 1
"""

# KEYS[1..3] the day's board, members, runs; KEYS[4..6] the all-time board's (one slot:
# the game's). ARGV[1] the player, ARGV[2] the race of the run to drop.
DROP_RUN = """
for base = 0, 3, 3 do
  local member = redis.call('HGET', KEYS[base + 2], ARGV[1])
  if member then
    local record = redis.call('HGET', KEYS[base + 3], member)
    if record and cjson.decode(record)['race'] == ARGV[2] then
      redis.call('ZREM', KEYS[base + 1], member)
      redis.call('HDEL', KEYS[base + 3], member)
      redis.call('HDEL', KEYS[base + 2], ARGV[1])
    end
  end
end
return 1
"""


class RedisModeration(Moderation):
    def __init__(self, calls: RedisCalls, keys: RedisKeys, accounts: RedisAccounts) -> None:
        self._calls, self._keys, self._redis, self._call = calls, keys, calls.redis, calls.call
        self.accounts = accounts
        self._settle = self._redis.register_script(SETTLE)
        self._drop_run = self._redis.register_script(DROP_RUN)

    async def review(self, race: str) -> dict[str, Any] | None:
        text = await self._call(self._redis.get(self._keys.race(race, "review")))
        return json.loads(text) if text is not None else None

    async def flagged(self, limit: int) -> list[dict[str, Any]]:
        races = await self._call(self._redis.zrange(self._keys.flagged(), 0, -1))
        found = []
        for race in races:
            review = await self.review(race)
            if review is None or review["status"] != "flagged":
                await self._call(self._redis.zrem(self._keys.flagged(), race))
            else:
                found.append(review)
        return ordered(found)[:limit]

    async def waiting(self) -> int:
        return int(await self._call(self._redis.zcard(self._keys.flagged())))

    @acknowledged_once_replicated
    async def settle(self, race: str, expected: str, review: dict[str, Any], keep_s: int) -> bool:
        key = self._keys.race(race, "review")
        args: list[str | int] = [expected, encode_json(review), keep_s]
        done = bool(await self._call(self._settle(keys=[key], args=args)))
        if not done:  # decided meanwhile: whoever did has kept the list
            return False
        if review["status"] == "flagged":
            await self._call(self._redis.zadd(self._keys.flagged(), {race: review["at_ms"]}))
        else:
            await self._call(self._redis.zrem(self._keys.flagged(), race))
        return True

    async def awaiting_field(self, game: str, day: str) -> list[str]:
        key = self._keys.daily(game, day, "awaiting_field")
        return sorted(await self._call(self._redis.smembers(key)))

    @acknowledged_once_replicated
    async def field_judged(self, game: str, day: str, race: str) -> None:
        key = self._keys.daily(game, day, "awaiting_field")
        await self._call(self._redis.srem(key, race))

    @acknowledged_once_replicated
    async def drop_daily_run(self, game: str, day: str, run: Run) -> None:
        keys = self._keys.daily_board(game, day) + self._keys.best(game)
        await self._call(self._drop_run(keys=keys, args=[run.player, run.race]))

    @acknowledged_once_replicated
    async def take_back_ratings(self, game: str, changes: dict[str, tuple[Rating, Rating]]) -> None:
        for player, (before, after) in changes.items():
            key = self._keys.rating(game, player)
            for _ in range(TRIES):
                async with (
                    self._calls.translated(),
                    asyncio.timeout(self._calls.deadline),
                    self._redis.pipeline(transaction=True) as pipe,
                ):
                    try:
                        await pipe.watch(key)
                        value = await pipe.get(key)
                        current = Rating.from_dict(json.loads(value)) if value else DEFAULT
                        pipe.multi()  # type: ignore[no-untyped-call]
                        pipe.set(key, encode_json(taken_back(current, before, after).as_dict()))
                        await pipe.execute()
                    except WatchError:
                        continue
                break
            else:
                raise StoreError(f"{player}'s rating kept changing under it ({TRIES} tries)")

    @acknowledged_once_replicated
    async def close_account(self, username: str) -> Account | None:
        account = await self.accounts.account(username)
        if account is None:
            return None
        key = self._keys.key("account", username_key(username))
        await self._call(self._redis.hset(key, "closed", "1"))
        await self.accounts.revoke_tokens(account.player, None)
        return await self.accounts.account(username)

    @acknowledged_once_replicated
    async def rename_account(self, username: str, new_username: str) -> Account | None:
        accounts, old_key, new_key = (
            self.accounts,
            username_key(username),
            username_key(new_username),
        )
        account = await accounts.account(username)
        assert account is not None
        if old_key != new_key:
            renamed_account = dataclasses.replace(account, username=new_username)
            old_skeleton = username_skeleton(old_key)
            old_claim = self._keys.key("lookalike", old_skeleton)
            if username_skeleton(new_key) == old_skeleton:  # the claim stays, for the new name
                await self._call(self._redis.set(old_claim, new_key))
            if not await accounts.create_account(renamed_account):
                return None
            await self._call(self._redis.delete(self._keys.key("account", old_key)))
            if await self._call(self._redis.get(old_claim)) == old_key:
                await self._call(self._redis.delete(old_claim))
        else:  # only the letters' case changes
            await self._call(
                self._redis.hset(self._keys.key("account", old_key), "username", new_username)
            )
        await self._call(
            self._redis.set(self._keys.player(account.player, "account"), new_username)
        )
        if account.closed:  # create_account writes no such field
            await self._call(self._redis.hset(self._keys.key("account", new_key), "closed", "1"))
        await accounts.revoke_tokens(account.player, None)
        days = (await accounts.history(account.player)).days
        boards = [self._keys.best(game) for game in GAMES]
        boards += [self._keys.daily_board(game, day) for game in GAMES for day in days]
        for _, members, runs in boards:
            member = await self._call(self._redis.hget(members, account.player))
            record = member and await self._call(self._redis.hget(runs, member))
            if record:
                run = renamed(run_from_json(record), account.player, new_username)
                await self._call(self._redis.hset(runs, member, run_json(run)))
        return await accounts.account(new_username)

    @acknowledged_once_replicated
    async def audit(self, entry: dict[str, Any]) -> None:
        await self._call(self._redis.lpush(self._keys.audit(), encode_json(entry)))

    async def audit_log(self, limit: int) -> list[dict[str, Any]]:
        texts = await self._call(self._redis.lrange(self._keys.audit(), 0, limit - 1))
        return [json.loads(text) for text in texts]
