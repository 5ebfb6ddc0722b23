"""The one ordered path of writes to the store.

Every job (``server/handover/jobs.py``) is queued in the order it was decided. Whatever is queued
when the writer gets to run (one loop turn's worth, or everything decided while the last
batch was in flight) goes to the store in one round trip: that is the group commit that
lets an ``act`` be answered only once its log entry is stored, at thousands a second.

A queued item is one of:
- a job to retry until written (race records, results, daily runs, identities): never
  dropped on a store error that retrying can mend (one refused for good, ``Fenced`` because
  a newer node took the racer over, or ``LogGap`` because the log lost entries it was
  decided on, is dropped and logged); at shutdown what is left is
  spilled to a file that the next start writes first;
- a job that may be *refused* (an accepted action): when the store fails it is not
  retried, ``refused`` is called instead (the action is undone and answered
  ``store_unavailable``), and so is every refusable job queued after it, which was decided
  on top of it;
- a barrier (no job): its ``done`` runs once everything before it is settled, so answers
  that need no write keep their place among those that do (it waits for refusable jobs
  only: while writes fail it runs at once, after the refusals before it).
``done`` and ``refused`` run in queue order.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from server.handover.jobs import Job, describe, job_from_json, job_json
from server.store import Fenced, LogGap, Store, StoreError

log = logging.getLogger("solrace.writer")

BATCH_LIMIT = 2000  # jobs per round trip
BACKLOG_ALERT = 5000  # queued items past which /healthz says the writes are backing up
LOG_EVERY_S = 10.0  # while writes keep failing, one log line this often


@dataclass(slots=True)
class Pending:
    job: Job | None
    done: Callable[[], None] | None
    refused: Callable[[StoreError], None] | None


class Writer:
    def __init__(
        self,
        store: Store,
        spill_path: Path | None = None,
        first_pause_s: float = 0.05,
        max_pause_s: float = 2.0,
        node: str = "",
        observe: Callable[[float], None] | None = None,
    ) -> None:
        self.store = store
        self.observe = observe  # told each round trip's seconds (/metrics counts them)
        self.spill_path = spill_path
        self.node = node
        self.first_pause_s = first_pause_s
        self.max_pause_s = max_pause_s
        self.queue: deque[Pending] = deque()
        self.wakeup = asyncio.Event()
        self.idle = asyncio.Event()
        self.idle.set()
        self.failures = 0  # consecutive failed round trips
        self.failing_since: float | None = None
        self.last_logged = 0.0
        self.last_error = ""
        self.written = 0  # jobs written, for /metrics
        self.refused_count = 0  # refusable jobs refused
        self.in_flight = False  # a batch is being written
        self.flight: list[Pending] = []  # that batch (spilled too if shutdown comes first)

    # ------------------------------------------------------------------ submitting

    def submit(
        self,
        job: Job | None,
        done: Callable[[], None] | None = None,
        refused: Callable[[StoreError], None] | None = None,
    ) -> None:
        """Queue ``job`` (None: a barrier). ``done`` runs once it is written; with
        ``refused``, a store failure calls that instead of retrying the job. With nothing
        queued and a store that writes without I/O (memory), it is done at once."""
        if self.at_once(job):
            _call(done)
            return
        self.queue.append(Pending(job, done, refused))
        if self.idle.is_set():
            self.idle.clear()
        if not self.wakeup.is_set():
            self.wakeup.set()

    async def stored(self, job: Job) -> None:
        """Write ``job`` in its turn and return once it is stored; the ``StoreError`` if
        the store refuses it (it is not retried then)."""
        loop = asyncio.get_running_loop()
        stored: asyncio.Future[None] = loop.create_future()

        def done() -> None:
            if not stored.done():
                stored.set_result(None)

        def refused(error: StoreError) -> None:
            if not stored.done():
                stored.set_exception(error)

        self.submit(job, done, refused)
        await stored

    def at_once(self, job: Job | None) -> bool:
        """Write ``job`` now and say True, if nothing waits before it and the store needs
        no I/O for it (memory); else False, and nothing is done (``submit`` it)."""
        if self.queue or self.in_flight or self.failures:
            return False
        if job is None:
            return True
        written = self.store.write_now((job,))
        if written is None or written[0] is not None:
            return False
        self.written += 1
        return True

    @property
    def backlog(self) -> int:
        return len(self.queue)

    @property
    def healthy(self) -> bool:
        """Writes are going through and not backing up."""
        return self.failures == 0 and len(self.queue) < BACKLOG_ALERT

    # ------------------------------------------------------------------ running

    async def run(self) -> None:
        """Write batches forever (until cancelled)."""
        while True:
            if not self.queue:
                self.idle.set()
                self.wakeup.clear()
                await self.wakeup.wait()
                continue
            batch = [self.queue.popleft() for _ in range(min(BATCH_LIMIT, len(self.queue)))]
            jobs = [item.job for item in batch if item.job is not None]
            self.in_flight, self.flight = True, batch
            try:
                errors = await self._write(jobs)
            finally:
                self.in_flight, self.flight = False, []
            if self._settle(batch, errors):
                await asyncio.sleep(
                    min(self.max_pause_s, self.first_pause_s * 2 ** min(self.failures, 10))
                )

    async def _write(self, jobs: list[Job]) -> list[StoreError | None]:
        if not jobs:
            return []
        started = time.perf_counter()
        try:
            return await self.store.write(jobs)
        except StoreError as error:
            return [error] * len(jobs)
        except Exception as error:  # a bug: keep the jobs (never dropped), say so loudly
            log.exception("store write failed unexpectedly", exc_info=error)
            return [StoreError(f"unexpected {type(error).__name__}: {error}")] * len(jobs)
        finally:
            if self.observe is not None:
                self.observe(time.perf_counter() - started)

    def _settle(self, batch: list[Pending], errors: list[StoreError | None]) -> bool:
        """Run each item's callback; keep jobs to retry at the head of the queue. True if
        anything failed (the caller pauses before trying again)."""
        results = iter(errors)
        retry: list[Pending] = []
        failure: StoreError | None = None
        for item in batch:
            error = next(results) if item.job is not None else None
            if error is None:
                if item.job is not None:
                    self.written += 1
                _call(item.done)
            elif item.refused is not None:
                failure = error
                self.refused_count += 1
                _call(item.refused, error)
            elif isinstance(error, Fenced | LogGap) and item.job is not None:  # for good
                log.error(
                    "a write the store refuses for good is dropped",
                    extra={"job": describe(item.job), "error": str(error)},
                )
            else:
                failure = error
                retry.append(item)
        if failure is None:
            self._recovered()
            return False
        # Refusable jobs queued later were decided on top of the ones that failed.
        later, self.queue = self.queue, deque()
        for item in later:
            if item.refused is not None:
                self.refused_count += 1
                _call(item.refused, failure)
            elif item.job is None:  # it only keeps its place among refusable ones
                _call(item.done)
            else:
                retry.append(item)
        self.queue.extend(retry)
        self._failed(failure, retry)
        return True

    def _failed(self, error: StoreError, kept: list[Pending]) -> None:
        self.failures += 1
        now = time.monotonic()
        self.last_error = str(error)
        if self.failing_since is None:
            self.failing_since = now
        if now - self.last_logged >= LOG_EVERY_S or self.failures == 1:
            self.last_logged = now
            log.warning(
                "store writes are failing; nothing acknowledged is dropped, retrying",
                extra={
                    "error": str(error),
                    "failing_for_s": round(now - self.failing_since, 1),
                    "backlog": len(self.queue),
                    "waiting": [describe(i.job) for i in kept[:5] if i.job is not None],
                },
            )

    def _recovered(self) -> None:
        if self.failing_since is not None:
            log.info(
                "store writes go through again",
                extra={
                    "failed_for_s": round(time.monotonic() - self.failing_since, 1),
                    "backlog": len(self.queue),
                },
            )
        self.failures = 0
        self.failing_since = None

    # ------------------------------------------------------------------ shutdown and start

    async def drain(self, timeout_s: float) -> bool:
        """Wait until everything queued is settled; False if ``timeout_s`` passed first."""
        try:
            await asyncio.wait_for(self.idle.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    def spill(self) -> int:
        """At shutdown, with writes still queued: append the jobs to the spill file (one
        JSON object a line) for the next start to write. Refusable jobs were never
        acknowledged and are dropped. A batch still being written is spilled too: it may
        be written twice (every job is idempotent), never lost. Returns how many jobs were
        spilled."""
        jobs = [
            item.job
            for item in (*self.flight, *self.queue)
            if item.job is not None and item.refused is None
        ]
        self.flight = []
        self.queue.clear()
        if not jobs:
            return 0
        if self.spill_path is None:
            log.error(
                "writes left undone at shutdown and no spill file is set: they are lost",
                extra={"jobs": [job_json(job) for job in jobs]},
            )
            return 0
        path = self._own_spill_file()
        with path.open("a", encoding="utf-8") as spill:
            for job in jobs:
                spill.write(json.dumps(job_json(job), separators=(",", ":")) + "\n")
            spill.flush()
        log.warning(
            "writes spilled to a file for the next start",
            extra={"jobs": len(jobs), "file": str(path)},
        )
        return len(jobs)

    def _own_spill_file(self) -> Path:
        """The spill file, or, when ``spill_path`` is a folder (several nodes share it),
        this node's file in it."""
        assert self.spill_path is not None
        if self.spill_path.is_dir():
            return self.spill_path / f"spill-{self.node}.jsonl"
        return self.spill_path

    def replay_spill(self) -> int:
        """At start: queue the jobs spilled by a previous process (before anything else);
        a file is removed once its jobs are all written. With a folder, every node's file
        in it, each taken by renaming it first (one node takes each). Returns how many
        jobs were queued."""
        path = self.spill_path
        if path is None or not path.exists():
            return 0
        files = sorted(path.glob("spill-*.jsonl")) if path.is_dir() else [path]
        queued = 0
        for spilled in files:
            taken = spilled.with_name(f"{spilled.name}.{self.node or 'start'}.replaying")
            try:
                spilled.rename(taken)
            except OSError:
                continue  # another node took it
            queued += self._replay(taken)
        return queued

    def _replay(self, path: Path) -> int:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
        jobs = [job_from_json(json.loads(line)) for line in lines]
        if not jobs:
            path.unlink(missing_ok=True)
            return 0
        left = len(jobs)

        def written() -> None:
            nonlocal left
            left -= 1
            if left == 0:
                path.unlink(missing_ok=True)
                log.info("spilled writes are all stored", extra={"file": str(path)})

        for job in jobs:
            self.submit(job, written)
        log.info("writing spilled jobs first", extra={"jobs": len(jobs), "file": str(path)})
        return len(jobs)


def _call(callback: Callable[..., None] | None, *args: object) -> None:
    """Run a callback; one that fails is logged and must not stop the writer."""
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:
        log.exception("a write's follow-up failed")
