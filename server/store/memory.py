"""The in-memory store: everything in this process, lost when it stops (the default, so
``solrace serve`` needs nothing else). Each role keeps its own part (``memory_*.py``):
ended races are kept for their retention time and at most ``max_ended`` of them (10,000 by
default), so memory stays bounded; identities expire as in Redis (``SaveIdentity.keep_s``);
boards and daily claims are small and kept while the process runs."""

from __future__ import annotations

from collections.abc import Sequence

from server.handover.jobs import AppendActions, EndRace, Job, KeepReview, RecordDaily, RecordHistory
from server.store.base import Fenced, LogGap, Store, StoreError
from server.store.memory_accounts import MemoryAccounts
from server.store.memory_arenas import MemoryArenas
from server.store.memory_bus import MemoryBus, MemoryLimits, MemoryPairing
from server.store.memory_days import MemoryDays
from server.store.memory_moderation import MemoryModeration
from server.store.memory_races import MemoryRaces


class MemoryStore(Store):
    """Everything in this process's memory; lost when it stops.

    Atomic because no method awaits between reading and writing, so on one event loop
    nothing interleaves. Values are kept as the same JSON text Redis keeps, so both stores
    return equal copies and reject the same values.
    """

    shared = False  # one process: its node would hear only its own messages

    def __init__(self, max_ended: int = 10_000) -> None:
        self._secret: str | None = None
        self._signing_key: str | None = None
        self._public_keys: dict[str, str] = {}
        self.days: MemoryDays = MemoryDays()
        self.accounts: MemoryAccounts = MemoryAccounts()
        self.bus: MemoryBus = MemoryBus(self)
        self.pairing = MemoryPairing()
        self.limits = MemoryLimits()
        self.moderation: MemoryModeration = MemoryModeration(self.accounts, self.days)
        self.races: MemoryRaces = MemoryRaces(self.bus, max_ended, self.moderation.forget)
        self.arenas: MemoryArenas = MemoryArenas()

    async def daily_secret(self, proposed: str) -> str:
        if self._secret is None:
            self._secret = proposed
        return self._secret

    async def signing_key(self, proposed: str) -> str:
        if self._signing_key is None:
            self._signing_key = proposed
        return self._signing_key

    async def publish_key(self, key_id: str, public_hex: str) -> dict[str, str]:
        self._public_keys.setdefault(key_id, public_hex)
        return dict(self._public_keys)

    async def write(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        return self.write_now(jobs)

    def write_now(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        errors: list[StoreError | None] = []
        for job in jobs:
            try:
                self._do(job)
            except (Fenced, LogGap) as refused:
                errors.append(refused)
            else:
                errors.append(None)
        return errors

    def _do(self, job: Job) -> None:
        """Each job goes to the role it feeds."""
        if isinstance(job, AppendActions):
            self.races.append_job(job)
        elif isinstance(job, EndRace):
            self.races.end(job)
        elif isinstance(job, RecordDaily):
            self.days.record(job.game, job.day, job.run)
            if job.awaits_field:
                self.moderation.await_field(job.game, job.day, job.run.race)
        elif isinstance(job, RecordHistory):
            self.accounts.record_history(job)
        elif isinstance(job, KeepReview):
            self.moderation.keep(job)
        else:
            self.accounts.save_identity(job)

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        return None
