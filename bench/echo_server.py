"""The baselines of the server benchmark: a bare websockets + msgpack echo server and, given
a Redis, the same echo storing every request before answering it.

Each binary message is decoded and answered with a result map that carries the request
back (about the size of a real action result): the least any server on the same stack
must do per request. With a Redis URL, each request is first appended to its connection's
stream (XADD), the requests that arrive while a batch is out going together in the next
round trip, one write each, as solrace's writer sends its batches: the least a server on
the same stack must do to answer only what is stored. Run as
``python -m bench.echo_server PORT [REDIS_URL]``.
"""

from __future__ import annotations

import asyncio
import sys
from urllib.parse import urlsplit

import hiredis
import msgpack
from websockets.asyncio.server import ServerConnection, serve


class StreamLog:
    """Requests appended to Redis streams: one pipelined batch in flight at a time, holding
    every request that came while the one before was out."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.replies = hiredis.Reader()
        self.waiting: list[tuple[bytes, asyncio.Future[None]]] = []  # an XADD, its answer
        self.ready = asyncio.Event()

    @classmethod
    async def open(cls, url: str) -> StreamLog:
        """Connected to the Redis at ``url`` (``redis://`` or ``rediss://``, with its user,
        password and database number if it names them)."""
        address = urlsplit(url)
        log = cls(
            *await asyncio.open_connection(
                address.hostname, address.port or 6379, ssl=address.scheme == "rediss" or None
            )
        )
        first: list[tuple[str, ...]] = []
        if address.password:
            first.append(("AUTH", *filter(None, (address.username, address.password))))
        if address.path.strip("/"):
            first.append(("SELECT", address.path.strip("/")))
        log.writer.write(b"".join(map(hiredis.pack_command, first)))  # type: ignore[arg-type]
        for _ in first:
            await log.reply()
        return log

    async def append(self, key: str, request: bytes) -> None:
        """Return once ``request`` is in the stream ``key``."""
        stored = asyncio.get_running_loop().create_future()
        command = hiredis.pack_command(("XADD", key, "*", "r", request))  # type: ignore[arg-type]
        self.waiting.append((command, stored))
        self.ready.set()
        await stored

    async def run(self) -> None:
        while True:
            await self.ready.wait()
            self.ready.clear()
            batch, self.waiting = self.waiting, []
            self.writer.write(b"".join(command for command, _ in batch))
            for _, stored in batch:
                await self.reply()
                if not stored.done():  # its request's task may have been cancelled
                    stored.set_result(None)

    async def reply(self) -> object:
        """The next reply; an error reply, or a closed connection, raises."""
        reply = self.replies.gets()
        while reply is False:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("Redis closed the connection")
            self.replies.feed(data)
            reply = self.replies.gets()
        if isinstance(reply, hiredis.ReplyError):
            raise reply
        return reply


async def main(port: int, redis_url: str | None) -> None:
    log = await StreamLog.open(redis_url) if redis_url else None

    async def echo(connection: ServerConnection) -> None:
        key = f"bench-echo-{port}:{connection.id}"
        async for frame in connection:
            request = msgpack.unpackb(frame, raw=False)
            if log is not None:
                await log.append(key, frame)  # type: ignore[arg-type]
            reply = {"type": "result", "of": request.get("type"), **request}
            await connection.send(msgpack.packb(reply, use_bin_type=True))

    async with serve(
        echo,
        "127.0.0.1",
        port,
        compression=None,
        max_size=4096,
        backlog=1024,
        ping_interval=None,  # bare: no keepalive
    ):
        print("echo serving", flush=True)
        await (log.run() if log is not None else asyncio.Future())


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None))
