"""A debugging aid for memory growth, off unless ``SOLRACE_MEMORY_DUMP`` names a file.

With it, on each SIGUSR1 ``solrace serve`` appends to that file the garbage collector's
counts and the objects it tracks (frozen ones included) by type that grew since the last
dump; with ``PYTHONTRACEMALLOC=10`` too, the allocations that grew since the last dump by
traceback (tracemalloc slows the server a lot). Counting frozen objects unfreezes and
refreezes them: never in production.

    SOLRACE_MEMORY_DUMP=/tmp/mem.txt solrace serve ... &
    kill -USR1 $PID; sleep 60; kill -USR1 $PID   # then read /tmp/mem.txt
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import time
import tracemalloc
from collections import Counter

VARIABLE = "SOLRACE_MEMORY_DUMP"
FRAMES = 10  # at most, of each traceback
TOP = 25


class MemoryDump:
    def __init__(self, path: str) -> None:
        self.path = path
        self.snapshot: tracemalloc.Snapshot | None = None
        self.kinds: Counter[str] = Counter()

    def dump(self) -> None:
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        kinds = Counter(type(thing).__qualname__ for thing in gc.get_objects())
        gc.freeze()
        snapshot = None
        if tracemalloc.is_tracing():
            snapshot = tracemalloc.take_snapshot().filter_traces(
                [tracemalloc.Filter(False, tracemalloc.__file__)]
            )
        with open(self.path, "a", encoding="utf-8") as out:
            print(f"=== {time.strftime('%H:%M:%S')} frozen {frozen}", file=out)
            print(f"gc counts {gc.get_count()} tracked {sum(kinds.values())}", file=out)
            grown = kinds.copy()
            grown.subtract(self.kinds)
            for kind, more in grown.most_common(TOP):
                print(f"  {more:+8d} {kinds[kind]:8d} {kind}", file=out)
            if snapshot is not None and self.snapshot is not None:
                for stat in snapshot.compare_to(self.snapshot, "traceback")[:TOP]:
                    print(f"{stat.size_diff / 1024:+10.1f} KiB {stat.count_diff:+7d}", file=out)
                    for line in stat.traceback.format(limit=FRAMES):
                        print(f"    {line}", file=out)
        self.snapshot, self.kinds = snapshot, kinds


def install(loop: asyncio.AbstractEventLoop) -> None:
    """On SIGUSR1, dump as above when ``SOLRACE_MEMORY_DUMP`` is set; else nothing."""
    path = os.environ.get(VARIABLE)
    if not path:
        return
    loop.add_signal_handler(signal.SIGUSR1, MemoryDump(path).dump)
