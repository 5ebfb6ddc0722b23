"""The writer: one ordered path to the store. Answers keep their order whether or not
their job needs writing; a refusable job that fails is refused with every refusable job
queued after it; other jobs are retried until written."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from protocol.race import LogEntry
from server.carry.writer import Writer
from server.handover.jobs import AppendActions, Job, SaveIdentity
from server.store import Identity, MemoryStore, Store, StoreError, StoreUnavailable


class SlowStore(MemoryStore):
    """A store whose writes take a while and can be made to fail."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = False
        self.batches: list[list[Job]] = []

    def write_now(self, jobs: Sequence[Job]) -> None:  # type: ignore[override]
        return None  # it needs I/O

    async def write(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        await asyncio.sleep(0.01)
        if self.failing:
            raise StoreUnavailable("down")
        self.batches.append(list(jobs))
        return MemoryStore.write_now(self, jobs)


def act(seq: int) -> AppendActions:
    return AppendActions("r1", (LogEntry("ann", seq, "deal", seq),))


async def test_answers_keep_their_order_behind_a_batch_in_flight() -> None:
    store = SlowStore()
    writer = Writer(store)
    running = asyncio.create_task(writer.run())
    told: list[str] = []
    writer.submit(act(1), lambda: told.append("act 1"))
    await asyncio.sleep(0.001)  # the writer took it: it is in flight now
    writer.submit(None, lambda: told.append("refusal 2"))
    writer.submit(act(3), lambda: told.append("act 3"))
    await writer.drain(1)
    assert told == ["act 1", "refusal 2", "act 3"]
    running.cancel()


async def test_a_failed_write_refuses_the_actions_after_it_and_keeps_the_rest() -> None:
    store = SlowStore()
    store.failing = True
    writer = Writer(store, first_pause_s=0.01)
    running = asyncio.create_task(writer.run())
    told: list[str] = []
    record = SaveIdentity("hash", "ann", "Ann", keep_s=60)
    writer.submit(act(1), lambda: told.append("act 1"), lambda e: told.append("refused 1"))
    writer.submit(record, lambda: told.append("record"))
    writer.submit(act(2), lambda: told.append("act 2"), lambda e: told.append("refused 2"))
    writer.submit(None, lambda: told.append("barrier"))
    for _ in range(200):  # the first write fails; its refusals are told at once
        if "barrier" in told:
            break
        await asyncio.sleep(0.01)
    assert told == ["refused 1", "refused 2", "barrier"]
    kept = [item.job for item in [*writer.queue, *writer.flight]]  # queued, or being retried
    assert kept == [record] and not writer.healthy
    store.failing = False
    await writer.drain(1)
    assert told[-1] == "record" and writer.healthy
    assert await store.accounts.identity("hash") == Identity("ann", "Ann", None)
    running.cancel()


async def test_with_a_memory_store_and_nothing_queued_a_job_is_done_at_once() -> None:
    writer = Writer(MemoryStore())
    told: list[str] = []
    writer.submit(act(1), lambda: told.append("act 1"))
    assert told == ["act 1"]


async def test_writes_left_at_shutdown_are_spilled_and_written_first_by_the_next_start(
    tmp_path: Path,
) -> None:
    down = SlowStore()
    down.failing = True
    spill = tmp_path / "spill.jsonl"
    writer = Writer(down, spill, first_pause_s=0.01)
    running = asyncio.create_task(writer.run())
    writer.submit(SaveIdentity("hash", "ann", "Ann", keep_s=60))
    writer.submit(act(1), refused=lambda error: None)  # never acknowledged: not kept
    assert not await writer.drain(0.1)
    running.cancel()
    assert writer.spill() == 1 and spill.exists()
    store = MemoryStore()
    later = Writer(store, spill)
    assert later.replay_spill() == 1
    running = asyncio.create_task(later.run())
    await later.drain(1)
    assert await store.accounts.identity("hash") == Identity("ann", "Ann", None)
    assert not spill.exists()
    running.cancel()


async def test_nodes_sharing_a_spill_folder_each_spill_to_their_own_file_and_one_replays_each(
    tmp_path: Path,
) -> None:
    for node in ("node-a", "node-b"):
        down = SlowStore()
        down.failing = True
        writer = Writer(down, tmp_path, node=node)
        writer.submit(SaveIdentity(f"hash-{node}", node, node, keep_s=60))
        assert writer.spill() == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "spill-node-a.jsonl",
        "spill-node-b.jsonl",
    ]
    store = MemoryStore()
    first, second = Writer(store, tmp_path, node="node-c"), Writer(store, tmp_path, node="node-d")
    assert first.replay_spill() == 2 and second.replay_spill() == 0  # each file taken once
    running = asyncio.create_task(first.run())
    await first.drain(1)
    assert await store.accounts.identity("hash-node-a") == Identity("node-a", "node-a", None)
    assert await store.accounts.identity("hash-node-b") == Identity("node-b", "node-b", None)
    assert list(tmp_path.iterdir()) == []
    running.cancel()


async def test_a_batch_in_flight_at_shutdown_is_spilled_too(tmp_path: Path) -> None:
    """Drain gives up while a batch is being written (a store that hangs): its jobs are
    not in the queue then, and must be spilled all the same (writing one twice is
    harmless; losing one is not)."""

    class HangingStore(SlowStore):
        async def write(self, jobs: Sequence[Job]) -> list[StoreError | None]:
            await asyncio.Event().wait()
            raise AssertionError("never answers")

    spill = tmp_path / "spill.jsonl"
    writer = Writer(HangingStore(), spill)
    running = asyncio.create_task(writer.run())
    writer.submit(SaveIdentity("hash", "ann", "Ann", keep_s=60))
    writer.submit(act(1), refused=lambda error: None)  # never acknowledged: not kept
    await asyncio.sleep(0.05)
    assert writer.in_flight
    writer.submit(SaveIdentity("hash2", "bob", "Bob", keep_s=60))
    assert not await writer.drain(0.05)
    assert writer.spill() == 2
    running.cancel()
    store = MemoryStore()
    later = Writer(store, spill)
    assert later.replay_spill() == 2
    running = asyncio.create_task(later.run())
    assert await later.drain(5)
    assert await store.accounts.identity("hash") == Identity("ann", "Ann", None)
    assert await store.accounts.identity("hash2") == Identity("bob", "Bob", None)
    running.cancel()


async def test_a_job_fenced_off_by_a_newer_node_is_dropped_not_retried_for_ever(
    store: Store,
) -> None:
    """Node A writes Bob's log again (a lost race rewritten) with the fence it knew, but
    node B has taken Bob over since: the store refuses that job for good (``Fenced``), so
    it is dropped, and Ann's actions behind it are written, not refused for ever."""
    assert await store.races.claim_racer("r1", "bob", 2)  # node B's newer session of Bob
    writer = Writer(store, first_pause_s=0.01)
    running = asyncio.create_task(writer.run())
    told: list[str] = []
    writer.submit(AppendActions("r1", (LogEntry("bob", 1, "deal", 5),), fence=1))
    for seq in (1, 2):
        writer.submit(
            AppendActions("r1", (LogEntry("ann", seq, "deal", seq),), fence=1),
            lambda seq=seq: told.append(f"ann {seq} stored"),  # type: ignore[misc]
            lambda error: told.append(f"ann refused: {error}"),
        )
    await asyncio.wait_for(writer.idle.wait(), 5)
    running.cancel()
    assert told == ["ann 1 stored", "ann 2 stored"]
    assert [e.player for e in await store.races.actions("r1")] == ["ann", "ann"]
