"""What ``/metrics`` says about the store, read every few seconds apart from any request:
whether it answers (``solrace_store_up``: with Redis, the primary this node writes to),
how many replicas follow it (``solrace_store_replicas``), whether it is a replica promoted
since the last reading (``solrace_store_failovers_total``) and how many fair-play reviews
wait for a moderator (``solrace_fair_play_waiting``). The alert rules read these
(``deploy/prometheus/alerts.yml``); it decides nothing and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from server.store import Store

log = logging.getLogger("solrace.server")

WATCH_EVERY_S = 5.0  # one PING, one INFO and one ZCARD per node this often
ANSWER_WITHIN_S = 2.0  # a store slower than this to answer a PING is counted down


class StoreWatch:
    def __init__(
        self,
        store: Store,
        failed_over: Callable[[], None] = lambda: None,
        every_s: float = WATCH_EVERY_S,
    ) -> None:
        """``failed_over`` is called once for each promotion seen."""
        self.store = store
        self.failed_over = failed_over
        self.every_s = every_s
        self.up = True  # until a reading says otherwise (nothing is alerted before one)
        self.replicas: int | None = None  # None: not known (the memory store has none)
        self.replid = ""  # the replication history the store continued at the last reading
        self.waiting: int | None = None  # reviews waiting for a moderator; None: not read

    async def run(self) -> None:
        """Read the store's state every ``every_s`` until cancelled (the node reads it once
        before it serves: ``read``)."""
        while True:
            await asyncio.sleep(self.every_s)
            await self.read()

    async def read(self) -> None:
        """One reading; what the store does not answer keeps its last value (but ``up``).
        A failover is seen when the server answering now was promoted from a replica of
        the one read before (its ``replid2`` is that one's ``replid``); a primary restarted
        from its own files is none, and a promotion missed between two readings (the
        store down meanwhile) is seen at the next reading it answers."""
        try:
            self.up = await asyncio.wait_for(self.store.ping(), ANSWER_WITHIN_S)
        except Exception:
            self.up = False
        if not self.up:
            return
        try:
            replication = await self.store.bus.replication()
            self.waiting = await self.store.moderation.waiting()
        except Exception:
            log.warning("could not read the store's replication or reviews", exc_info=True)
            return
        if replication is None:
            return
        if self.replid and replication.replid2 == self.replid:
            log.warning("the store is a replica promoted since the last reading: a failover")
            self.failed_over()
        self.replicas, self.replid = replication.replicas, replication.replid

    def readings(self) -> dict[str, float]:
        """The figures for ``/metrics`` (those not known yet left out)."""
        figures = {"store_up": float(self.up)}
        if self.replicas is not None:
            figures["store_replicas"] = float(self.replicas)
        if self.waiting is not None:
            figures["fair_play_waiting"] = float(self.waiting)
        return figures
