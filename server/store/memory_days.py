"""The memory store's daily role: each game's days (deal, nonce, claims, board) and the
all-time boards."""

from __future__ import annotations

from protocol.ranking import Run
from server.store.base import check_game
from server.store.memory_state import DailyState, RankedRuns
from server.store.records import Board
from server.store.roles import Days


class MemoryDays(Days):
    def __init__(self) -> None:
        self.by_day: dict[tuple[str, str], DailyState] = {}  # (game, day) -> its state
        self.best: dict[str, RankedRuns] = {}  # game -> all-time board

    def _day(self, game: str, day: str) -> DailyState:
        return self.by_day.setdefault((game, day), DailyState())

    async def daily_deal(self, game: str, day: str) -> int | None:
        state = self.by_day.get((game, day))
        return state.deal if state else None

    async def set_daily_deal(self, game: str, day: str, number: int, nonce: str = "") -> int:
        state = self._day(game, day)
        if state.deal is None:
            state.deal, state.nonce = number, nonce
        return state.deal

    async def daily_nonce(self, game: str, day: str) -> str | None:
        state = self.by_day.get((game, day))
        return state.nonce if state and state.deal is not None else None

    async def claim_daily(self, game: str, day: str, player: str, attempt: str) -> bool:
        claims = self._day(game, day).claims
        return claims.setdefault(player, attempt) == attempt

    async def ranked_attempt(self, game: str, day: str, player: str) -> str | None:
        state = self.by_day.get((game, day))
        return state.claims.get(player) if state else None

    async def record_daily(self, game: str, day: str, run: Run) -> bool:
        return self.record(game, day, run)

    def record(self, game: str, day: str, run: Run) -> bool:
        """``record_daily`` done at once (a ``RecordDaily`` job)."""
        check_game(game, run)
        state = self.by_day.get((game, day))
        if state is None or state.claims.get(run.player) != run.race:
            return False
        recorded = state.board.get(run.player)
        if recorded is not None:
            return recorded == run
        state.board.put(run)
        if run.finished:
            self._offer(game, run)
        return True

    async def daily_board(
        self, game: str, day: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        state = self.by_day.get((game, day))
        return (state.board if state else RankedRuns()).board(top, player, around)

    def _offer(self, game: str, run: Run) -> bool:
        if not run.finished:
            return False
        board = self.best.setdefault(game, RankedRuns())
        stored = board.get(run.player)
        if stored == run:
            return True
        if stored is not None and not run.better_than(stored):
            return False
        board.put(run)
        return True

    async def best_board(
        self, game: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        return self.best.get(game, RankedRuns()).board(top, player, around)
