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

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

from redis.exceptions import WatchError

from protocol.accounts import username_key, username_skeleton
from protocol.race import LogEntry
from protocol.ranking import Run
from protocol.ratings import DEFAULT, Rating, race_updates
from server.jobs import AppendActions, Job
from server.node_news import RecordChanged, encode
from server.store.base import (
    Account,
    Board,
    Entry,
    History,
    Identity,
    Listed,
    Store,
    StoreError,
    any_shared,
    check_game,
    check_window,
    encode_json,
    log_batches,
    race_channel,
    run_from_json,
    run_json,
)
from server.store.redis_batch import BatchBuilder, Shas, score
from server.store.redis_calls import CALL_DEADLINE_S, RedisCalls, wire_address
from server.store.redis_keys import RedisKeys
from server.store.redis_listen import Listening
from server.store.redis_logs import RacerLogs
from server.store.redis_moderation import RedisModeration
from server.store.redis_scripts import (
    APPEND_LOG,
    CLAIM,
    CREATE_ACCOUNT,
    END_RACE,
    FIRST_WRITER,
    JOIN_POOL,
    LEASE,
    LEAVE_POOL,
    OFFER_BEST,
    READ_BOARD,
    RECORD_DAILY,
    RECORD_HISTORY,
    RELEASE,
    SAVE_RACE_IF,
    SET_DEAL,
    TAKE_PAIR,
)
from server.store.redis_sender import BatchSender

KEEP_POOL_S = 3600  # where a player waits is forgotten after an hour (the pairer drops them)
RATE_TRIES = 10  # a race's rating transaction, when other writes to its keys interleave
KEEP_GENERATIONS_S = 400 * 86_400  # a player's event generation counter, after its last use
KEEP_DAILY_DAYS = 400  # a day's deal, claims and board live this long after their last write


class RedisStore(Store):
    """The store in Redis at ``url``, every key under ``prefix``.

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
    ):
        self._keys = RedisKeys(prefix)  # refuses a prefix with braces
        self.prefix = prefix
        self._keep_daily_s = keep_daily_days * 86_400  # a day's keys, after their last write
        calls = self._calls = RedisCalls(url, deadline)
        self._redis = calls.redis
        # the store's own calls, by their short names
        self._call, self._translated, self._pipeline = calls.call, calls.translated, calls.pipeline
        self._first_writer = self._redis.register_script(FIRST_WRITER)
        self._set_deal = self._redis.register_script(SET_DEAL)
        self._create_account = self._redis.register_script(CREATE_ACCOUNT)
        self._join_pool = self._redis.register_script(JOIN_POOL)
        self._leave_pool = self._redis.register_script(LEAVE_POOL)
        self._take_pair = self._redis.register_script(TAKE_PAIR)
        self._claim = self._redis.register_script(CLAIM)
        self._record_daily = self._redis.register_script(RECORD_DAILY)
        self._offer_best = self._redis.register_script(OFFER_BEST)
        self._read_board = self._redis.register_script(READ_BOARD)
        self._lease = self._redis.register_script(LEASE)
        self._release = self._redis.register_script(RELEASE)
        self._save_race_if = self._redis.register_script(SAVE_RACE_IF)
        self._end_race = self._redis.register_script(END_RACE)
        self._record_history = self._redis.register_script(RECORD_HISTORY)
        self._append_log = self._redis.register_script(APPEND_LOG)
        scripts = (  # called by hash in the writer's batches
            self._append_log,
            self._record_daily,
            self._end_race,
            self._record_history,
        )
        shas = Shas(
            append_log=self._append_log.sha,
            end_race=self._end_race.sha,
            record_daily=self._record_daily.sha,
            record_history=self._record_history.sha,
        )
        self._builder = BatchBuilder(self._keys, shas, self._keep_daily_s)
        address = wire_address(url)  # for the store's own connections (redis_wire)
        self._logs = RacerLogs(calls, self._keys)
        self._sender = BatchSender(calls, self._builder, scripts, address, self._logs)
        self._listening = Listening(self, calls, address, prefix)
        self.moderation = RedisModeration(self)

    # daily challenge

    async def daily_secret(self, proposed: str) -> str:
        key = self._keys.key("daily-secret")
        return str(await self._call(self._first_writer(keys=[key], args=[proposed, 0])))

    async def signing_key(self, proposed: str) -> str:
        key = self._keys.key("signing-key")
        return str(await self._call(self._first_writer(keys=[key], args=[proposed, 0])))

    async def publish_key(self, key_id: str, public_hex: str) -> dict[str, str]:
        key = self._keys.key("signing-keys")
        await self._call(self._redis.hsetnx(key, key_id, public_hex))
        published: dict[str, str] = await self._call(self._redis.hgetall(key))
        return published

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

    async def daily_deal(self, game: str, day: str) -> int | None:
        stored: str | None = await self._call(self._redis.get(self._keys.daily(game, day, "deal")))
        return None if stored is None else int(stored)

    async def set_daily_deal(self, game: str, day: str, number: int, nonce: str = "") -> int:
        keys = [self._keys.daily(game, day, "deal"), self._keys.daily(game, day, "nonce")]
        args: list[str | int] = [number, nonce, self._keep_daily_s]
        return int(await self._call(self._set_deal(keys=keys, args=args)))

    async def daily_nonce(self, game: str, day: str) -> str | None:
        nonce = await self._call(self._redis.get(self._keys.daily(game, day, "nonce")))
        return None if nonce is None else str(nonce)

    async def claim_daily(self, game: str, day: str, player: str, attempt: str) -> bool:
        key = self._keys.daily(game, day, "claims")
        args: list[str | int] = [player, attempt, self._keep_daily_s]
        return bool(await self._call(self._claim(keys=[key], args=args)))

    async def ranked_attempt(self, game: str, day: str, player: str) -> str | None:
        key = self._keys.daily(game, day, "claims")
        attempt: str | None = await self._call(self._redis.hget(key, player))
        return attempt

    async def record_daily(self, game: str, day: str, run: Run) -> bool:
        check_game(game, run)
        keys, args = self._builder.record_daily_call(game, day, run)
        return bool(await self._call(self._record_daily(keys=keys, args=args)))

    async def daily_board(
        self, game: str, day: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        return await self._board(self._keys.daily_board(game, day), top, player, around)

    async def offer_best(self, game: str, run: Run) -> bool:
        check_game(game, run)
        if not run.finished:
            return False
        args: list[str | int] = [
            run.player,
            score(run),
            run.member(),
            run_json(run),
            run.time_ms,
            run.actions,
        ]
        return bool(await self._call(self._offer_best(keys=self._keys.best(game), args=args)))

    async def best_board(
        self, game: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        return await self._board(self._keys.best(game), top, player, around)

    async def _board(self, keys: list[str], top: int, player: str | None, around: int) -> Board:
        check_window(top, around)
        args: list[str | int] = [top, around, "0" if player is None else "1", player or ""]
        total, rank, start, top_runs, around_runs = await self._call(
            self._read_board(keys=keys, args=args)
        )
        top_entries = _entries(0, top_runs)
        if rank < 0:
            return Board(int(total), top_entries, [], None)
        around_entries = _entries(int(start), around_runs)
        return Board(int(total), top_entries, around_entries, around_entries[rank - start])

    # races

    async def save_race(self, race: str, record: dict[str, Any]) -> None:
        key = self._keys.race(race, "race")
        items: list[str | int] = ["r", encode_json(record)]
        if "version" in record:
            items += ["v", int(record["version"])]
        await self._call(self._redis.hset(key, items=items))

    async def load_race(self, race: str) -> dict[str, Any] | None:
        stored = await self._call(self._redis.hmget(self._keys.race(race, "race"), "v", "r"))
        return _record(*stored)

    async def save_race_if(
        self, race: str, record: dict[str, Any], version: int, listed: Listed
    ) -> bool:
        message = encode_json(encode(RecordChanged(version + 1, self.node)))
        channel = self.prefix + race_channel(race)
        args: list[str | int] = [version, encode_json(record), channel, message]
        keys = [self._keys.race(race, "race")]
        if not await self._call(self._save_race_if(keys=keys, args=args)):
            return False
        await self._call(self._list(race, listed))
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

    async def append_actions(self, entries: list[tuple[str, LogEntry]]) -> None:
        jobs = [AppendActions(race, tuple(batch)) for race, batch in log_batches(entries).items()]
        if jobs:
            for error in await self.write(jobs):
                if error is not None:
                    raise error

    async def racer_log(self, race: str, player: str, after_seq: int = 0) -> list[LogEntry]:
        return await self._logs.read(race, player, after_seq)

    async def racers_logged(self, race: str) -> list[str]:
        return sorted(await self._call(self._redis.smembers(self._keys.race(race, "racers"))))

    async def claim_racer(self, race: str, player: str, fence: int) -> bool:
        return await self._logs.claim(race, player, fence)

    async def save_result(self, race: str, result: dict[str, Any]) -> None:
        await self._call(self._redis.set(self._keys.race(race, "result"), encode_json(result)))

    async def load_result(self, race: str) -> dict[str, Any] | None:
        return _loaded(await self._call(self._redis.get(self._keys.race(race, "result"))))

    # live races, players, leases

    async def live_races(self) -> list[str]:
        return await self.listed_races("live")

    async def player_races(self, player: str) -> list[str]:
        key = self._keys.player(player, "races")
        return sorted(await self._call(self._redis.smembers(key)))

    async def subscribe(self, channels: Sequence[str]) -> None:
        await self._listening.subscribe(channels)

    async def unsubscribe(self, channels: Sequence[str]) -> None:
        await self._listening.unsubscribe(channels)

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        await self._call(self._redis.publish(self.prefix + channel, encode_json(message)))

    async def node_alive(self, node: str, ttl_ms: int) -> None:
        async with self._pipeline() as pipe:
            pipe.sadd(self._keys.key("nodes"), node)
            pipe.set(self._keys.key("node", node, "alive"), "1", px=ttl_ms)
            await pipe.execute()

    async def nodes(self) -> dict[str, bool]:
        known = sorted(await self._call(self._redis.smembers(self._keys.key("nodes"))))
        if not known:
            return {}
        alive = await self._call(
            self._redis.mget([self._keys.key("node", node, "alive") for node in known])
        )
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
        where = await self._call(self._redis.mget([self._keys.player(p, "node") for p in players]))
        return [p for p, there in zip(players, where, strict=True) if there == node]

    async def forget_node(self, node: str) -> None:
        async with self._pipeline() as pipe:
            pipe.srem(self._keys.key("nodes"), node)
            pipe.delete(
                self._keys.key("node", node, "players"), self._keys.key("node", node, "alive")
            )
            await pipe.execute()

    async def identity(self, token_hash: str) -> Identity | None:
        found = await self._call(self._redis.hgetall(self._keys.key("token", token_hash)))
        if not found:
            return None
        return Identity(
            found["player"], found["name"], found.get("account") or None, bool(found.get("played"))
        )

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
            if theirs:
                pipe.delete(*theirs)
            pipe.srem(listed, *token_hashes)
            await pipe.execute()

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
                    pipe.set(mark, 1, ex=keep_s)
                    await pipe.execute()
                except WatchError:  # a watched key changed: read them again
                    continue
            return {player: (before[player], rating) for player, rating in after.items()}
        raise StoreError(f"race {race}'s ratings kept changing under it ({RATE_TRIES} tries)")

    async def history(self, player: str) -> History:
        raced, order, stats, days = self._keys.history(player)
        async with self._pipeline() as pipe:
            pipe.zrevrange(order, 0, -1)
            pipe.hgetall(raced)
            pipe.hgetall(stats)
            pipe.zrange(days, 0, -1)
            races, entries, counts, day_list = await pipe.execute()
        recent = [json.loads(entries[race]) for race in races if race in entries]
        played = {
            k.removesuffix(":played"): int(v) for k, v in counts.items() if k.endswith(":played")
        }
        won = {k.removesuffix(":won"): int(v) for k, v in counts.items() if k.endswith(":won")}
        return History(recent, played, won, list(day_list))

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

    async def count_attempt(self, scope: str, window_s: int) -> int:
        window = int(time.time()) // window_s
        key = self._keys.key("attempts", scope, str(window))
        return int((await self._call(self._incr_living(key, window_s)))[0])

    async def failures(self, scope: str) -> int:
        return int(await self._call(self._redis.get(self._keys.key("failures", scope))) or 0)

    async def note_failure(self, scope: str, keep_s: int) -> int:
        key = self._keys.key("failures", scope)
        return int((await self._call(self._incr_living(key, keep_s)))[0])

    async def clear_failures(self, scope: str) -> None:
        await self._call(self._redis.delete(self._keys.key("failures", scope)))

    async def next_event_generation(self, player: str) -> int:
        key = self._keys.player(player, "gen")
        return int((await self._call(self._incr_living(key)))[0])

    async def _incr_living(self, key: str, keep_s: int = KEEP_GENERATIONS_S) -> list[Any]:
        """INCR, then keep the key ``keep_s`` more seconds, in one transaction."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, keep_s)
            result: list[Any] = await pipe.execute()
            return result

    async def claim_lease(self, name: str, holder: str, ttl_ms: int) -> bool:
        key = self._keys.key("lease", name)
        return bool(await self._call(self._lease(keys=[key], args=[holder, ttl_ms])))

    async def release_lease(self, name: str, holder: str) -> None:
        await self._call(self._release(keys=[self._keys.key("lease", name)], args=[holder]))

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
        await self._redis.aclose()

    async def purge(self) -> int:
        """Delete every key under this store's prefix (for tests and tear-downs); returns
        how many were deleted."""
        deleted = 0
        async with self._translated():
            async for key in self._redis.scan_iter(match=_glob_escape(self.prefix) + "*"):
                deleted += await self._redis.delete(key)
        return deleted


def _record(version: str | None, text: str | None) -> dict[str, Any] | None:
    """A race record as stored (a hash of its version and JSON), with its version."""
    if text is None:
        return None
    record: dict[str, Any] = json.loads(text)
    if version is not None:
        record["version"] = int(version)
    return record


def _entries(start: int, records: list[str]) -> list[Entry]:
    return [Entry(start + offset + 1, run_from_json(text)) for offset, text in enumerate(records)]


def _loaded(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value: dict[str, Any] = json.loads(text)
    return value


def _glob_escape(text: str) -> str:
    return "".join("\\" + char if char in "*?[]\\" else char for char in text)
