"""Connecting the terminal commands to a server, and coming back after a dropped
connection: the resume token and the last event seen bring the same session back, so the
player loses nothing (docs/protocol.md, ``hello``)."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import time

from websockets.exceptions import InvalidHandshake, InvalidURI

from client.api import Client, ServerError
from client.commands.common import UsageError
from client.device import device_id
from protocol.errors import SolraceError

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"
CLOSE_REPLACED = 4001  # another connection resumed this player's session
RETRY_DELAYS_S = (0.2, 0.5, 1.0, 2.0)  # then every 2 s until the grace period is over


class Unreachable(SolraceError):
    """The server could not be reached, or the session could not be brought back."""

    code = "unreachable"


def add_server_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("SOLRACE_SERVER", DEFAULT_SERVER),
        metavar="URL",
        help=f"the server's websocket URL [SOLRACE_SERVER, default {DEFAULT_SERVER}]",
    )


def add_name_argument(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    parser.add_argument(
        "--name",
        default=default or default_name(),
        help="your display name, 1 to 24 characters [SOLRACE_NAME, default Player-NNNN]",
    )


def default_name() -> str:
    """``SOLRACE_NAME``, or ``Player-`` and four random digits. Not the login name: that is
    often ``root`` or ``user``, the same for everyone, and private."""
    return (
        clean_name(os.environ.get("SOLRACE_NAME", "")) or f"Player-{random.randrange(10_000):04d}"
    )


def clean_name(name: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f]", "", name).strip()[:24]


def check_arguments(args: argparse.Namespace, command: str) -> None:
    """UsageError (one line, exit 2) for a server URL or a name the server cannot take."""
    if not re.fullmatch(r"wss?://[^\s/]+(/\S*)?", args.server):
        raise UsageError(f"solrace {command}: --server must be a ws:// or wss:// URL")
    name = getattr(args, "name", None)
    if name is not None and (clean_name(name) != name.strip() or not name.strip()):
        raise UsageError(f"solrace {command}: --name must be 1 to 24 printable characters")


class Link:
    """A ``Client`` and what it takes to keep it: the server clock's offset from ours, and
    reconnecting with the same session when the connection drops."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.offset_ms = 0
        self.replaced = False
        self._set_offset()

    @classmethod
    async def open(cls, url: str, name: str) -> Link:
        try:
            client = await Client.connect(url, name, device=device_id())
        except (OSError, InvalidURI, InvalidHandshake, TimeoutError) as error:
            raise Unreachable(f"cannot reach the server at {url}: {error}") from None
        return cls(client)

    def _set_offset(self) -> None:
        welcome = self.client.welcome
        if welcome is not None:
            self.offset_ms = welcome.server_time_ms - int(time.time() * 1000)

    def server_now_ms(self) -> int:
        """The server's clock, as well as ours can tell (epoch milliseconds)."""
        return int(time.time() * 1000) + self.offset_ms

    def closed(self) -> asyncio.Future[None]:
        """Resolves when the current connection ends (the reader stops)."""
        reader = self.client.reader
        if reader is None:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            future.set_result(None)
            return future
        return asyncio.ensure_future(asyncio.shield(reader))

    def was_replaced(self) -> bool:
        """The server closed this connection because another one took the session."""
        connection = self.client.connection
        return connection is not None and connection.close_code == CLOSE_REPLACED

    async def reconnect(self) -> None:
        """Resume the session, trying again until the grace period is over; Unreachable
        when that fails or the server no longer knows the session."""
        welcome = self.client.welcome
        grace_s = (welcome.grace_ms if welcome else 30_000) / 1000
        deadline = time.monotonic() + grace_s
        attempt = 0
        while True:
            try:
                resumed = await self.client.resume()
            except (OSError, InvalidURI, InvalidHandshake, TimeoutError, ServerError) as error:
                delay = RETRY_DELAYS_S[min(attempt, len(RETRY_DELAYS_S) - 1)]
                attempt += 1
                if time.monotonic() + delay > deadline:
                    raise Unreachable(
                        f"the connection is lost and did not come back: {error}"
                    ) from None
                await asyncio.sleep(delay)
                continue
            self._set_offset()
            if not resumed.resumed:
                raise Unreachable("the server no longer knows this session (it was away too long)")
            return

    async def close(self) -> None:
        await self.client.close()
