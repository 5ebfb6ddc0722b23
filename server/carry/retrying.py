"""Work on the store that a timer started and that must happen however long the store is
in trouble (a player dropped after their grace period, a race rated): tried again with
growing pauses until the store takes it. Only the server's stop cancels it.

A plain loop, not a retry library: the server freezes its objects for the garbage
collector every tick (``server/carry/ticker.py``), so its paths must make no reference cycles,
and tenacity's retry objects are cycles (``tests/server/test_memory.py``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from server.store import StoreError

log = logging.getLogger("solrace.retrying")
T = TypeVar("T")
FIRST_PAUSE_S = 0.1
LONGEST_PAUSE_S = 5.0


async def until_the_store_takes_it(work: Callable[[], Awaitable[T]], what: str, **extra: Any) -> T:
    """``work()``, again after each ``StoreError`` (0.1 s, doubling up to 5 s apart); the
    first failure and the success after failures are logged, once each."""
    pause = FIRST_PAUSE_S
    failed = False
    while True:
        try:
            result = await work()
        except StoreError as error:
            if not failed:
                failed = True
                log.warning(
                    f"{what}: the store failed; trying again", extra={**extra, "error": str(error)}
                )
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE_S)
            continue
        if failed:
            log.info(f"{what}: done once the store was back", extra=extra)
        return result
