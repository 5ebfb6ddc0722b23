"""Whether this node's wall clock agrees with the store's (Redis ``TIME``).

A node decides days by its wall clock (the daily deal, the "same address that day"
rule, a day's boards) and stamps results with it; one whose clock is a day off would do
all that on its own wrong day. So the node compares its clock with the store's at start
and then every few seconds (``server/duties.py``); while they differ by more than
``--max-clock-offset-ms`` (beyond half the round trip, which may account for the
difference), it takes no lease and no new connection and says why (an ERROR log line,
``/healthz``, ``/readyz``, ``solrace_clock_off``). Races are timed on the monotonic clock,
which this does not concern. The memory store has no clock of its own: there is nothing
to compare with, and the node's clock is trusted.
"""

from __future__ import annotations

import logging
import time

from server.store.roles import Bus

log = logging.getLogger("solrace.server")


class ClockCheck:
    def __init__(self, bound_ms: int) -> None:
        self.bound_ms = bound_ms
        self.offset_ms: float | None = None  # this node's clock minus the store's; None: unknown
        self.off = False  # beyond the bound at the last reading

    async def measure(self, bus: Bus) -> None:
        """Read the store's clock and compare (StoreError when the store does not
        answer: the last reading stands)."""
        before = time.time()
        store_ms = await bus.clock_ms()
        after = time.time()
        if store_ms is None:
            return
        was_off = self.off
        self.offset_ms = (before + after) * 500 - store_ms
        half_round_trip_ms = (after - before) * 500  # the reading may be that far off
        self.off = abs(self.offset_ms) - half_round_trip_ms > self.bound_ms
        if self.off and not was_off:
            log.error(
                "this node's clock is off the store's: it takes no lease and no new "
                "connection until they agree; set its time right (NTP)",
                extra={"offset_ms": round(self.offset_ms), "bound_ms": self.bound_ms},
            )
        elif was_off and not self.off:
            log.warning(
                "this node's clock agrees with the store's again",
                extra={"offset_ms": round(self.offset_ms), "bound_ms": self.bound_ms},
            )

    def state(self) -> str:
        """For /healthz: "ok", "unchecked" (no store clock) or why the clock is off."""
        if self.offset_ms is None:
            return "unchecked"
        return self.trouble() or "ok"

    def trouble(self) -> str | None:
        """Why this node takes no new connection now (None: it does)."""
        if not self.off or self.offset_ms is None:
            return None
        return (
            f"this node's clock is {self.offset_ms / 1000:+.0f} s off the store's "
            f"(at most {self.bound_ms / 1000:g} s allowed): connect again later"
        )
