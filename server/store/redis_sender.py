"""The Redis store's writes of the writer's batches: sent, and every job's outcome read.

``BatchSender`` sends the commands a ``BatchBuilder`` (``redis_batch``) builds of a batch
of jobs in one write on the store's own batch connection (``redis_wire``, opened on first
use), and says for each job whether it went in: None, or the ``StoreError`` that stopped it
(``Fenced`` when its racer was taken over by another node); ``StoreUnavailable`` when none
could be sent. Scripts are called by their hash: when Redis does not know them (it
restarted) they are loaded and the batch sent again. A batch that may not have gone in
makes the builder forget the racers it knew registered (their ``SADD`` with it).

With ``wait_replicas`` N > 0 a batch ends with ``INCR`` of a mark and ``WAIT N wait_ms``
in the same round trip: the mark is a write of this connection after everything the
primary held then (a batch of resends only, each refused as already there, writes nothing
else, and a new connection has written nothing), so ``WAIT`` counts the replicas that hold
all of it. Fewer than N within ``wait_ms`` is ``StoreUnavailable`` for the whole batch:
nothing in it is acknowledged, and the writer writes it again (every job is idempotent).
A reply saying this Redis is a replica (``READONLY``: a primary demoted by a failover)
closes the connection, so the next batch asks where the primary is now. On a Redis Cluster
the batch goes to the primaries owning its keys' slots (``redis_cluster.ClusterBatches``:
one write to each, at once), and there is no ``WAIT`` (the options refuse it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import hiredis
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, ReadOnlyError

from server.handover.jobs import AppendActions, Job
from server.handover.moment import now
from server.store.base import StoreError, StoreUnavailable
from server.store.redis_batch import BatchBuilder
from server.store.redis_calls import RedisCalls, reply_error
from server.store.redis_cluster import ClusterBatches
from server.store.redis_logs import RacerLogs
from server.store.redis_wire import BatchConnection, Command
from server.store.replication import SINGLE, Replication


class BatchSender:
    """Sends the batches ``builder`` builds on a connection of its own to the primary
    ``calls`` names (``address``, or ``locate``d); the ``scripts`` they call by hash are
    loaded again through ``calls`` when Redis forgot them, and a refused entry id is looked
    into in ``logs``. Each batch counts once ``replication.wait_replicas`` replicas have
    it (0: once the primary has it)."""

    def __init__(
        self,
        calls: RedisCalls,
        builder: BatchBuilder,
        scripts: Sequence[AsyncScript],
        logs: RacerLogs,
        replication: Replication = SINGLE,
    ) -> None:
        self.calls = calls
        self.builder = builder
        self.scripts = scripts
        self.logs = logs
        self.batches: BatchConnection | ClusterBatches | None = None  # the writer's own
        self.waited: tuple[Command, ...] = ()  # the commands that end each batch
        self.wait_replicas = replication.wait_replicas
        self.wait_ms = replication.wait_ms
        if self.wait_replicas:
            self.waited = (("INCR", calls.mark), ("WAIT", self.wait_replicas, self.wait_ms))

    async def write(self, jobs: Sequence[Job], node: str) -> list[StoreError | None]:
        """One pipelined round trip: each job's commands in order; a race's action entries
        and the news of them (``APPEND_LOG``) go in one script call per job. Scripts are
        called by their hash: a Redis that does not know them (restarted) answers
        NOSCRIPT, and they are loaded and the batch sent again."""
        if not jobs:
            return []
        calls = self.calls
        try:  # the batch connection keeps the deadline itself (no timer per batch)
            spans, results = await self._send(jobs, node)
            if any(isinstance(result, NoScriptError) for result in results):
                self.builder.known_racers.clear()  # the SADD of a script refused did not go in
                async with asyncio.timeout(calls.deadline):
                    for script in self.scripts:
                        await calls.redis.script_load(script.script)
                spans, results = await self._send(jobs, node)
        except StoreUnavailable:
            self.builder.known_racers.clear()  # their SADD may not be on the replicas
            raise
        except Exception as error:
            self.builder.known_racers.clear()  # their SADD may not have gone in
            translated = calls.store_error(error)
            if translated is None:
                raise
            raise translated from error
        if not any(isinstance(result, Exception | list) for result in results):
            return [None] * len(jobs)  # all went in (the usual case: one pass, no slices)
        if any(isinstance(result, ReadOnlyError) for result in results) and self.batches:
            self.batches.close()  # a demoted primary: the next batch finds the new one
        errors: list[StoreError | None] = []
        for job, (first, count) in zip(jobs, spans, strict=True):
            replies = results[first : first + count]
            if isinstance(job, AppendActions):  # APPEND_LOG's reply: 1, or every XADD's
                replies = [
                    reply_error(str(item)) if isinstance(item, hiredis.ReplyError) else item
                    for reply in replies
                    for item in (reply if isinstance(reply, list) else (reply,))
                ]
            failed = next((r for r in replies if _failed(r)), None)
            if failed is None and isinstance(job, AppendActions) and any(map(_seen, replies)):
                async with calls.translated(), asyncio.timeout(calls.deadline):
                    failed = await self.logs.fenced(job)  # an id not above the last: ours?
            errors.append(None if failed is None else calls.refused(failed))
        if any(errors):
            self.builder.known_racers.clear()
        return errors

    async def _send(
        self, jobs: Sequence[Job], node: str
    ) -> tuple[list[tuple[int, int]], list[Any]]:
        """Send the batch's commands in one write on the writer's own connection and get
        every reply back (an error reply in its place, as an exception); with replicas to
        wait for, ``StoreUnavailable`` when fewer have it all within the wait."""
        commands, spans = self.builder.build(jobs, node, now().wall_ms)
        calls = self.calls
        if self.batches is None:
            self.batches = (
                BatchConnection(calls.address, calls.deadline, reply_error, calls.locate)
                if calls.slots is None
                else ClusterBatches(calls.slots, calls.deadline, reply_error)
            )
        if isinstance(self.batches, BatchConnection) and self.batches.transport is None:
            async with asyncio.timeout(calls.deadline):
                await self.batches.connect()
        if not self.waited:
            return spans, await self.batches.send(commands)
        results = await self.batches.send([*commands, *self.waited])
        confirmed = results[-1]
        if not isinstance(confirmed, int) or confirmed < self.wait_replicas:
            if any(isinstance(result, ReadOnlyError) for result in results):
                self.batches.close()  # a demoted primary: the next batch finds the new one
            raise calls.not_replicated(confirmed)
        return spans, results[: -len(self.waited)]

    def close(self) -> None:
        if self.batches is not None:
            self.batches.close()


def _seen(result: Any) -> bool:
    """An XADD refused because its id is not above its stream's last one."""
    return isinstance(result, Exception) and "equal or smaller than the target" in str(result)


def _failed(result: Any) -> bool:
    """A reply that says a command failed (an id already seen is looked into apart)."""
    return isinstance(result, Exception) and not _seen(result)
