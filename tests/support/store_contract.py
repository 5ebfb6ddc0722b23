"""What the store contract tests share (``tests/server/test_stores_*.py``): the game and
days they play, a run to record, and race records to save."""

from __future__ import annotations

from typing import Any

from protocol.race import LogEntry
from protocol.ranking import Run
from server.handover.jobs import AppendActions
from server.store import Entry, Listed, Store
from server.store.base import log_batches

GAME = "sanibel"
DAY = "2024-05-01"
NEXT_DAY = "2024-05-02"
EPOCH_MS = 1_714_521_600_000


def a_run(
    player: str,
    *,
    finished: bool = True,
    time_ms: int = 60_000,
    actions: int = 100,
    progress: int = 40,
    at_ms: int = EPOCH_MS,
    race: str | None = None,
    name: str | None = None,
) -> Run:
    return Run(
        player=player,
        name=name or player.title(),
        race=race or f"attempt-{player}",
        game=GAME,
        deal=99_999_999_999_999_999_999,
        finished=finished,
        time_ms=time_ms,
        actions=actions,
        progress=104 if finished else progress,
        at_ms=at_ms,
    )


async def record(store: Store, run: Run, day: str = DAY) -> bool:
    """Claim the run's attempt as the player's ranked one, then record the run."""
    assert await store.days.claim_daily(GAME, day, run.player, run.race)
    return await store.days.record_daily(GAME, day, run)


def players(entries: list[Entry]) -> list[str]:
    return [entry.run.player for entry in entries]


def a_record(race: str, *players: str) -> dict[str, Any]:
    return {"race": race, "racers": [{"player": p, "name": p.title()} for p in players]}


def listed(*players: str, joinable: bool = False, watchable: bool = False) -> Listed:
    return Listed(True, joinable, watchable, players)


async def append(store: Store, *entries: tuple[str, LogEntry]) -> None:
    """Log ``(race, entry)`` pairs as the server does (``AppendActions`` jobs, a race's
    entries in one), raising what the store refused."""
    jobs = [AppendActions(race, tuple(batch)) for race, batch in log_batches(list(entries)).items()]
    for error in await store.write(jobs):
        if error is not None:
            raise error


async def save(store: Store, race: str, *players: str, version: int = 0) -> bool:
    return await store.races.save_race_if(race, a_record(race, *players), version, listed(*players))
