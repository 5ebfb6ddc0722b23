"""Writes to the store that players must never wait for, and that must never be lost.

Jobs run one after another, in the order they were added, so a race's action log stays in
order. A job that fails because the store is unavailable is retried (with a growing pause,
up to ``max_pause_s``) until it succeeds; it is dropped only when it fails for another
reason (a bug), and then it is logged with everything needed to redo it by hand. On
shutdown, ``drain`` waits for the queue to empty.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from protocol.race import LogEntry
from server.store import Store, StoreUnavailable

log = logging.getLogger("solrace.persist")

Job = Callable[[], Awaitable[Any]]


class Persister:
    def __init__(self, first_pause_s: float = 0.05, max_pause_s: float = 5.0) -> None:
        self.jobs: deque[tuple[str, Job]] = deque()
        self.wakeup = asyncio.Event()
        self.idle = asyncio.Event()
        self.idle.set()
        self.first_pause_s = first_pause_s
        self.max_pause_s = max_pause_s
        self.failures = 0  # consecutive failures of the job at the head

    def add(self, what: str, job: Job) -> None:
        """Queue ``job`` (described by ``what`` in the logs)."""
        self.jobs.append((what, job))
        self.idle.clear()
        self.wakeup.set()

    def add_action(self, store: Store, race: str, entry: LogEntry) -> None:
        """Queue one entry of a race's action log; consecutive entries are written together
        in one batch, so the log keeps up with thousands of actions a second."""
        if len(self.jobs) > 1 and isinstance(self.jobs[-1][1], ActionBatch):
            batch = self.jobs[-1][1]
            if len(batch.entries) < ActionBatch.LIMIT:
                batch.entries.append((race, entry))
                return
        self.add("action log", ActionBatch(store, [(race, entry)]))

    @property
    def backlog(self) -> int:
        return len(self.jobs)

    async def run(self) -> None:
        """Run jobs forever (until cancelled)."""
        while True:
            if not self.jobs:
                self.idle.set()
                self.wakeup.clear()
                await self.wakeup.wait()
                continue
            what, job = self.jobs[0]
            try:
                await job()
            except StoreUnavailable as error:
                self.failures += 1
                pause = min(self.max_pause_s, self.first_pause_s * 2 ** min(self.failures, 10))
                log.warning(
                    "store unavailable; will retry",
                    extra={
                        "job": what,
                        "error": str(error),
                        "retry_in_s": pause,
                        "backlog": len(self.jobs),
                    },
                )
                await asyncio.sleep(pause)
                continue
            except Exception:
                log.exception("write failed and was dropped", extra={"job": what})
            self.failures = 0
            self.jobs.popleft()

    async def drain(self, timeout_s: float) -> bool:
        """Wait until every queued job is done; False if ``timeout_s`` passed first."""
        try:
            await asyncio.wait_for(self.idle.wait(), timeout_s)
        except TimeoutError:
            return False
        return True


class ActionBatch:
    """Action-log entries written in one call, in order."""

    LIMIT = 100  # entries per write: small enough never to hold the loop up for long

    def __init__(self, store: Store, entries: list[tuple[str, LogEntry]]) -> None:
        self.store = store
        self.entries = entries

    async def __call__(self) -> None:
        await self.store.append_actions(self.entries)
