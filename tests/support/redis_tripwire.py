"""A TCP proxy in front of a real redis-server, for tests that need Redis to fail at one
exact moment: when the server sends a chunk holding every byte string the tripwire is armed
with (say, the SET of one race's result), ``then`` runs first (kill Redis, fill its memory)
and only then is the chunk passed on; or (``lose_answer``) the chunk is passed on and Redis
does what it asks, but its answers on that connection are never passed back: the client
waits past its deadline, the write in and its answer lost. Everything else passes through
untouched, in both directions; connections made while Redis is down are closed, as
Redis's refusal would be.

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
        self.lost: set[asyncio.StreamWriter] = set()  # links whose answers are held back
        self.links: set[asyncio.Task[None]] = set()
        self.losing = False  # the armed chunk's answers are lost (``lose_answer``)

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

    def lose_answer(self, *parts: bytes) -> None:
        """The next chunk to Redis holding every one of ``parts`` is done, and Redis's
        answers on its connection are never passed back (its client times out)."""
        self.arm(*parts, then=lambda: None)
        self.losing = True

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
                    self._pump(reader, up_writer, watch=True, back=writer),
                    self._pump(up_reader, writer, watch=False),
                )
            finally:
                up_writer.close()
        except asyncio.CancelledError:
            pass
        finally:
            writer.close()
            self.links.discard(task)
            self.lost.discard(writer)

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        watch: bool,
        back: asyncio.StreamWriter | None = None,
    ) -> None:
        """Pass ``reader``'s chunks to ``writer``; ``watch``: they go to Redis (and
        ``back`` is where its answers go)."""
        try:
            while chunk := await reader.read(65536):
                if watch and self.then is not None and all(p in chunk for p in self.parts):
                    then, self.then = self.then, None
                    then()
                    if self.losing and back is not None:
                        self.losing = False
                        self.lost.add(back)
                    self.tripped.set()
                if writer in self.lost:
                    continue  # an answer lost
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()
