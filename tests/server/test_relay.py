"""The relay's own work (news from other nodes, pulls, pushes) stops cleanly with the
server: work cancelled before it began leaves no coroutine that was never awaited (a full
run once warned "coroutine 'Relay._pull.<locals>.pull' was never awaited")."""

from __future__ import annotations

import asyncio
import gc
import warnings

from server.relay import Relay
from server.store import MemoryStore


async def test_work_cancelled_before_it_began_leaves_nothing_unawaited() -> None:
    relay = Relay("n", MemoryStore(), None, {})  # type: ignore[arg-type]
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relay._spawn(work())
        relay.stop()  # before the loop ran the task once
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        gc.collect()
    assert started == []
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert not relay.tasks
