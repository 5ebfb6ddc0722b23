"""The ticker: every tick (50 ms) it freezes what the garbage collector has seen, flushes
the spectator feeds, and looks after a slice of all races (standings for idle racers,
time limits, letting finished races go) and of all sessions (letting go of events no
resume can need), so each is visited once per standings interval.

The ticker's work holds the event loop, and a request that arrives meanwhile waits for it
(a tick visiting a tenth of 1,000 races in one go held it about 0.8 ms), so it lets the
loop run between every ``chunk`` races: no hold is longer than a few of them. Each hold's
length is observed (``/metrics``: ``solrace_tick_seconds``).

Garbage-collector policy: races keep long-lived objects (positions for undo, logs) that
a full collection would scan for hundreds of milliseconds while every player waits.
Freezing them each tick keeps full collections down to what the last 50 ms made, and
reference counting frees a race's objects when it is let go. Cyclic garbage made since
the last young collection would be frozen too and never freed: the server makes none on
its paths (a test closes connections, ends sessions and forgets races, then unfreezes and
collects: it finds none). So a young collection would find nothing, and it holds the loop
while it scans what the last tick made (7 ms at 10,000 objects, every second or two at
4,000 actions/s: the paced benchmark's 99th percentile): while serving one runs only
after ``GC_YOUNG_THRESHOLD`` new objects within a tick, more than a tick of a server
beyond its saturation keeps (Python's default is 700).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable, Mapping

from protocol.race import Now
from server.state.rooms import Room

log = logging.getLogger("solrace.ticker")

GC_YOUNG_THRESHOLD = 100_000


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
        chunk: int = 20,
        observe: Callable[[float], None] | None = None,
    ) -> None:
        """Every ``interval_ms``: ``flush``, and a ``slices``-th of the races (``rooms()``,
        by id, read once a round of ``slices`` ticks: a race let go meanwhile is skipped, a
        new one waits for the next round) ``chunk`` at a time, then of the sessions;
        ``observe`` gets the length in seconds of each hold on the loop."""
        self.interval_s = interval_ms / 1000
        self.slices = max(1, slices)
        self.flush = flush
        self.chunk = max(1, chunk)
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
            try:
                self.flush(moment)
            except Exception:
                log.exception("flushing spectator feeds failed")
            slot = tick % self.slices
            rooms = self.rooms()
            if slot == 0 or tick == 1:
                self.round = list(rooms.values())
            for index, room in enumerate(self.round[slot :: self.slices]):
                if index and index % self.chunk == 0:  # let requests in
                    self._held(started)
                    await asyncio.sleep(0)
                    started = time.perf_counter()
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
            self._held(started)

    def _held(self, since: float) -> None:
        if self.observe is not None:
            self.observe(time.perf_counter() - since)
