"""At exit a server ends its own tasks: one that ignores cancelling is named and not waited
for, and tasks busy with Redis end within their step (though Python 3.11 drops some
cancels)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid

import pytest
from harness import running_server

from server.app import tasks_left
from server.store import open_store

GAME, DEAL = "mount_sunflower", 18


def test_at_exit_a_task_that_ignores_cancelling_is_named_and_not_waited_for() -> None:
    async def exiting() -> list[str]:
        let_go = asyncio.Event()

        async def stuck() -> None:
            while not let_go.is_set():
                with contextlib.suppress(asyncio.CancelledError):
                    await let_go.wait()

        tasks = [
            asyncio.create_task(stuck(), name="stuck"),
            asyncio.create_task(asyncio.sleep(3600), name="asleep"),  # ends when cancelled
        ]
        await asyncio.sleep(0)  # both running
        started = time.monotonic()
        left = await tasks_left(0.2)
        assert time.monotonic() - started < 2
        let_go.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return left

    left = asyncio.run(exiting())
    assert len(left) == 1 and left[0].startswith("stuck at ")


def test_at_exit_tasks_busy_with_redis_end_though_python_3_11_drops_some_cancels(
    redis_url: str,
) -> None:
    """On Python 3.11 ``asyncio.wait_for`` returns its result when the awaited step completes
    just as the caller is cancelled, and so drops the cancel (CPython issue 86296, fixed by
    3.12's rewrite); redis-py keeps its socket timeout with it (the store now gives it
    none). A task that renewed a lease in a loop, as the server's do, went on after one
    cancel; whatever else drops one, the exit cancels again."""

    async def exiting() -> list[str]:
        store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")

        async def renewing() -> None:
            while True:
                await store.bus.claim_lease("timers", "node", 1000)

        tasks = [asyncio.create_task(renewing(), name=f"renewing {i}") for i in range(20)]
        await asyncio.sleep(0.05)  # all of them talking to Redis
        try:
            return await tasks_left(2.0)
        finally:
            for task in tasks:
                while not task.done():
                    task.cancel()
                    await asyncio.wait({task}, timeout=0.05)
            await store.purge()
            await store.close()

    assert asyncio.run(exiting()) == []


async def test_stopping_ends_the_server_s_tasks_busy_with_redis_within_the_step(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="solrace.server")
    store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    async with running_server(store) as server:

        async def renewing() -> None:
            while True:
                await store.bus.claim_lease("other", server.node, 1000)

        server.tasks += [asyncio.create_task(renewing(), name="renewing") for _ in range(20)]
        await asyncio.sleep(0.05)
        await server.stop()
    overran = [r for r in caplog.records if "did not finish in time" in r.getMessage()]
    assert [(r.step, r.tasks) for r in overran] == []  # type: ignore[attr-defined]
    assert all(task.done() for task in server.tasks)
