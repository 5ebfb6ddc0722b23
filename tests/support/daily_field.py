"""A day's field on a store, for the tests of ``beyond_field``: finished runs of the day's
deal put on its board, and runs placed as a race's end places a ranked daily run judged
clear before the day had a field (``RecordDaily.awaits_field``)."""

from __future__ import annotations

import time
from typing import Any

from protocol.daily import day_of
from protocol.fairplay import Signals
from protocol.ranking import Run
from server.handover.jobs import Job, KeepReview, RecordDaily
from server.store import Store


def today() -> str:
    return day_of(int(time.time() * 1000))


async def field_of(store: Store, game: str, deal: int, runs: range) -> None:
    """Finished runs of today's ``deal`` on today's board: 10 minutes and more, a run
    apiece (players ``p0``, ``p1``, ...)."""
    for index in runs:
        time_ms = 600_000 + 10_000 * index
        run = Run(f"p{index}", f"Field{index}", f"r{index}", game, deal, True, time_ms, 80, 52, 1)
        await store.days.claim_daily(game, today(), run.player, run.race)
        assert await store.days.record_daily(game, today(), run)


async def placed_before_the_field(
    store: Store, game: str, player: str, name: str, time_ms: int
) -> Run:
    """``player``'s finished ranked daily run of today in ``time_ms``, judged clear before
    the day had a field (its review's signals as a person's run has them) and placed on
    the board listed to be judged once it has: the jobs a race's end writes."""
    run = Run(player, name, f"early-{name}", game, 0, True, time_ms, 120, 52, 1)
    signals = Signals(120, 0, 1_400, 0.8, None, 0, True, time_ms, None, 0)
    seen = {"name": name, "signals": signals.as_dict(), "reasons": [], "evidence": {}}
    review: dict[str, Any] = {
        "race": run.race,
        "kind": "daily",
        "game": game,
        "day": today(),
        "at_ms": int(time.time() * 1000),
        "status": "clear",
        "held": False,
        "players": {player: seen},
        "runs": [run.as_dict()],
        "changes": {},
    }
    await store.days.claim_daily(game, today(), player, run.race)
    jobs: list[Job] = [KeepReview(run.race, review, 86_400), RecordDaily(game, today(), run, True)]
    assert not any(await store.write(jobs))
    return run
