"""The Redis store's daily role: days' deals, nonces and claims (a day's keys share its
slot and expire ``keep_daily_s`` after their last write), the day's and all-time boards."""

from __future__ import annotations

from protocol.ranking import Run
from server.store.base import check_game, check_window, run_from_json
from server.store.records import Board, Entry
from server.store.redis_batch import BatchBuilder
from server.store.redis_calls import RedisCalls, acknowledged_once_replicated
from server.store.redis_keys import RedisKeys
from server.store.redis_scripts import CLAIM, READ_BOARD, RECORD_DAILY, SET_DEAL
from server.store.roles import Days


class RedisDays(Days):
    def __init__(
        self, calls: RedisCalls, keys: RedisKeys, builder: BatchBuilder, keep_daily_s: int
    ) -> None:
        self._calls, self._keys, self._redis = calls, keys, calls.redis
        self._call = calls.call
        self._builder = builder
        self._keep_daily_s = keep_daily_s
        self._set_deal = self._redis.register_script(SET_DEAL)
        self._claim = self._redis.register_script(CLAIM)
        self._record_daily = self._redis.register_script(RECORD_DAILY)
        self._read_board = self._redis.register_script(READ_BOARD)

    async def daily_deal(self, game: str, day: str) -> int | None:
        stored: str | None = await self._call(self._redis.get(self._keys.daily(game, day, "deal")))
        return None if stored is None else int(stored)

    @acknowledged_once_replicated
    async def set_daily_deal(self, game: str, day: str, number: int, nonce: str = "") -> int:
        keys = [self._keys.daily(game, day, "deal"), self._keys.daily(game, day, "nonce")]
        args: list[str | int] = [number, nonce, self._keep_daily_s]
        return int(await self._call(self._set_deal(keys=keys, args=args)))

    async def daily_nonce(self, game: str, day: str) -> str | None:
        nonce = await self._call(self._redis.get(self._keys.daily(game, day, "nonce")))
        return None if nonce is None else str(nonce)

    @acknowledged_once_replicated
    async def claim_daily(self, game: str, day: str, player: str, attempt: str) -> bool:
        key = self._keys.daily(game, day, "claims")
        args: list[str | int] = [player, attempt, self._keep_daily_s]
        return bool(await self._call(self._claim(keys=[key], args=args)))

    async def ranked_attempt(self, game: str, day: str, player: str) -> str | None:
        key = self._keys.daily(game, day, "claims")
        attempt: str | None = await self._call(self._redis.hget(key, player))
        return attempt

    @acknowledged_once_replicated
    async def record_daily(self, game: str, day: str, run: Run) -> bool:
        check_game(game, run)
        keys, args = self._builder.record_daily_call(game, day, run)
        return bool(await self._call(self._record_daily(keys=keys, args=args)))

    async def daily_board(
        self, game: str, day: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        return await self._board(self._keys.daily_board(game, day), top, player, around)

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


def _entries(start: int, records: list[str]) -> list[Entry]:
    return [Entry(start + offset + 1, run_from_json(text)) for offset, text in enumerate(records)]
