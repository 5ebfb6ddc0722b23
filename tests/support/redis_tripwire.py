"""A TCP proxy in front of a real redis-server, for tests that need Redis to fail at one
exact moment: when the server sends a chunk holding every byte string the tripwire is armed
with (say, the SET of one race's result), ``then`` runs first (kill Redis, fill its memory)
and only then is the chunk passed on. Everything else passes through untouched, in both
directions; connections made while Redis is down are closed, as Redis's refusal would be.

It runs in the test's event loop; the server under test (another process) connects to
``url`` instead of Redis's own address.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable


class Tripwire:
    def __init__(self, redis_port: int) -> None:
        self.redis_port = redis_port
        self.server: asyncio.Server | None = None
        self.port = 0
        self.parts: tuple[bytes, ...] = ()
        self.then: Callable[[], None] | None = None
        self.tripped = asyncio.Event()
        self.links: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> Tripwire:
        self.server = await asyncio.start_server(self._link, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    def arm(self, *parts: bytes, then: Callable[[], None]) -> None:
        """The next chunk to Redis holding every one of ``parts`` runs ``then`` first."""
        self.parts, self.then = parts, then
        self.tripped.clear()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in list(self.links):
            task.cancel()
        await asyncio.gather(*self.links, return_exceptions=True)

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.links.add(task)
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.redis_port)
            except OSError:
                return  # Redis is down: the client sees its connection closed
            try:
                await asyncio.gather(
                    self._pump(reader, up_writer, watch=True),
                    self._pump(up_reader, writer, watch=False),
                )
            finally:
                up_writer.close()
        except asyncio.CancelledError:
            pass
        finally:
            writer.close()
            self.links.discard(task)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, watch: bool
    ) -> None:
        try:
            while chunk := await reader.read(65536):
                if watch and self.then is not None and all(p in chunk for p in self.parts):
                    then, self.then = self.then, None
                    then()
                    self.tripped.set()
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()
