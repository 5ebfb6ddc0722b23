"""The daily challenge's deal per game and day: chosen once, stored, served to everyone.

The candidates come from ``protocol.daily.candidate_deals`` (with the operator's secret).
When a certifier is given (the solver), the day's deal is the first candidate it proves
winnable; otherwise the first candidate. The choice is stored with first-writer-wins, so
every server process sharing the store serves the same deal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor

from protocol.daily import DAY_MS, candidate_deals, day_of
from protocol.games import GAMES
from server.config import Settings
from server.store import Store

log = logging.getLogger("solrace.daily")

MAX_CANDIDATES = 64  # candidates tried before falling back to an uncertified deal

# (game, deal number, node budget) -> True when proven winnable
Certifier = Callable[[str, int, int], bool]


class DailyDeals:
    def __init__(
        self, store: Store, settings: Settings, certifier: Certifier | None = None
    ) -> None:
        self.store = store
        self.secret = settings.daily_secret
        self.nodes = settings.daily_solver_nodes
        self.certifier = certifier if settings.daily_certify else None
        self.locks: dict[tuple[str, str], asyncio.Lock] = {}
        self.executor: Executor | None = None

    @property
    def certifying(self) -> bool:
        return self.certifier is not None

    async def deal_for(self, game: str, day: str) -> tuple[int, bool]:
        """The day's deal of ``game`` and whether it was certified winnable."""
        stored = await self.store.daily_deal(game, day)
        if stored is None:
            lock = self.locks.setdefault((game, day), asyncio.Lock())
            async with lock:
                stored = await self.store.daily_deal(game, day)
                if stored is None:
                    stored = await self.store.set_daily_deal(
                        game, day, await self._choose(game, day)
                    )
        return stored, self.certifying

    async def _choose(self, game: str, day: str) -> int:
        candidates = candidate_deals(game, day, self.secret)
        first = next(candidates)
        if self.certifier is None:
            return first
        if self.executor is None:
            self.executor = ProcessPoolExecutor(max_workers=1)
        loop = asyncio.get_running_loop()
        number = first
        for _ in range(MAX_CANDIDATES):
            if await loop.run_in_executor(self.executor, self.certifier, game, number, self.nodes):
                log.info("daily deal certified", extra={"game": game, "day": day})
                return number
            number = next(candidates)
        log.error("no candidate proven winnable; using the first", extra={"game": game, "day": day})
        return first

    async def prepare_ahead(self, now_wall_ms: int) -> None:
        """Choose today's and tomorrow's deals in the background, so nobody waits."""
        for offset in (0, DAY_MS):
            day = day_of(now_wall_ms + offset)
            for game in GAMES:
                try:
                    await self.deal_for(game, day)
                except Exception:
                    log.warning("could not prepare a daily deal", exc_info=True,
                                extra={"game": game, "day": day})  # fmt: skip

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(cancel_futures=True)
