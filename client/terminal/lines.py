"""Lines typed by the player, read by a daemon thread so the event loop never blocks on
standard input and events keep arriving while the player thinks."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import TextIO


class LineReader:
    """The lines of ``stream`` (without their newline) in an asyncio queue; ``None`` at the
    end of input. Start it inside the running event loop."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.thread = threading.Thread(target=self._read, name="solrace-input", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for line in self.stream:
                if not self._put(line.rstrip("\r\n")):
                    return
        except (OSError, ValueError):
            pass  # standard input closed under us: same as its end
        self._put(None)

    def _put(self, line: str | None) -> bool:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, line)
        except RuntimeError:  # the event loop has ended: nobody is listening
            return False
        return True

    async def next(self) -> str | None:
        return await self.queue.get()
