"""The baseline of the server benchmark: a bare websockets + msgpack echo server.

Each binary message is decoded and answered with a result map that carries the request
back (about the size of a real action result): the least any server on the same stack
must do per request. Run as ``python -m bench.echo_server PORT``.
"""

from __future__ import annotations

import asyncio
import sys

import msgpack
from websockets.asyncio.server import ServerConnection, serve


async def echo(connection: ServerConnection) -> None:
    async for frame in connection:
        request = msgpack.unpackb(frame, raw=False)
        reply = {"type": "result", "of": request.get("type"), **request}
        await connection.send(msgpack.packb(reply, use_bin_type=True))


async def main(port: int) -> None:
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
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
