"""Work on the store that a timer started and that must happen however long the store is
in trouble (a player dropped after their grace period, a race rated): tried again with
growing pauses until the store takes it. Only the server's stop cancels it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, wait_exponential

from server.store import StoreError

log = logging.getLogger("solrace.retrying")
T = TypeVar("T")
FIRST_PAUSE_S = 0.1
LONGEST_PAUSE_S = 5.0


async def until_the_store_takes_it(work: Callable[[], Awaitable[T]], what: str, **extra: Any) -> T:
    """``work()``, again after each ``StoreError`` (0.1 s, doubling up to 5 s apart); the
    first failure and the success after failures are logged, once each."""

    def failed(state: RetryCallState) -> None:
        if state.attempt_number == 1:
            error = state.outcome.exception() if state.outcome else None
            log.warning(
                f"{what}: the store failed; trying again", extra={**extra, "error": str(error)}
            )

    retrying = AsyncRetrying(
        retry=retry_if_exception_type(StoreError),
        wait=wait_exponential(multiplier=FIRST_PAUSE_S, max=LONGEST_PAUSE_S),
        before_sleep=failed,
        reraise=True,
    )
    result: T = await retrying(work)
    if retrying.statistics.get("attempt_number", 1) > 1:
        log.info(f"{what}: done once the store was back", extra=extra)
    return result
