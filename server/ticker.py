"""The ticker: every tick (10 ms) it freezes what the garbage collector has seen and looks
after a slice of all races (standings for idle racers, time limits, letting finished races
go) and of all sessions (letting go of events no resume can need), so each is visited once
per standings interval; every few ticks (50 ms) it flushes the spectator feeds. The work
is cut that fine because a tick holds the event loop: a request that arrives meanwhile
waits for it (a 50 ms tick visiting a tenth of 1,000 races held the loop about 0.8 ms).
Each tick's length is observed (``/metrics``: ``solrace_tick_seconds``).

Garbage-collector policy: races keep long-lived objects (positions for undo, logs) that
a full collection would scan for hundreds of milliseconds while every player waits.
Freezing them each tick keeps full collections down to what the last 50 ms made, and
reference counting frees a race's objects when it is let go. Cyclic garbage made since
the last young collection would be frozen too and never freed: the server makes none on
its paths (a test closes connections, ends sessions and forgets races, then unfreezes and
collects: it finds none). Young collections run every ``GC_YOUNG_THRESHOLD`` allocations
rather than Python's 700 while serving: a busy server allocates that many in a few
actions.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable, Mapping

from protocol.race import Now
from server.rooms import Room

log = logging.getLogger("solrace.ticker")

GC_YOUNG_THRESHOLD = 10_000


class Ticker:
    def __init__(
        self,
        interval_ms: int,
        slices: int,
        flush: Callable[[Now], None],
        rooms: Callable[[], Mapping[str, Room]],
        look_after: Callable[[Room, Now], None],
        clock: Callable[[], Now],
        sessions: Callable[[Now, int, int], None] | None = None,
        flush_every: int = 1,
        observe: Callable[[float], None] | None = None,
    ) -> None:
        """Every ``interval_ms``: a ``slices``-th of the races (``rooms()``, by id, read once
        a round of ``slices`` ticks: a race let go meanwhile is skipped, a new one waits
        for the next round) and of the sessions; ``flush`` every ``flush_every`` ticks;
        ``observe`` gets each tick's length in seconds."""
        self.interval_s = interval_ms / 1000
        self.slices = max(1, slices)
        self.flush = flush
        self.flush_every = max(1, flush_every)
        self.observe = observe
        self.round: list[Room] = []  # the races of this round of slices
        self.rooms = rooms
        self.look_after = look_after
        self.clock = clock
        self.sessions = sessions  # looks after part (1st) of parts (2nd) of the sessions
        self.saved_threshold = gc.get_threshold()

    def start_gc_policy(self) -> None:
        self.saved_threshold = gc.get_threshold()
        gc.set_threshold(GC_YOUNG_THRESHOLD, *self.saved_threshold[1:])

    def stop_gc_policy(self) -> None:
        gc.unfreeze()
        gc.set_threshold(*self.saved_threshold)

    async def run(self) -> None:
        tick = 0
        while True:
            await asyncio.sleep(self.interval_s)
            tick += 1
            started = time.perf_counter()
            moment = self.clock()
            gc.freeze()
            if tick % self.flush_every == 0:
                try:
                    self.flush(moment)
                except Exception:
                    log.exception("flushing spectator feeds failed")
            slot = tick % self.slices
            rooms = self.rooms()
            if slot == 0 or tick == 1:
                self.round = list(rooms.values())
            for room in self.round[slot :: self.slices]:
                if rooms.get(room.id) is not room:
                    continue
                try:
                    self.look_after(room, moment)
                except Exception:
                    log.exception("looking after a race failed", extra={"race": room.id})
            if self.sessions is not None:
                try:
                    self.sessions(moment, slot, self.slices)
                except Exception:
                    log.exception("looking after sessions failed")
            if self.observe is not None:
                self.observe(time.perf_counter() - started)
