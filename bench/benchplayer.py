"""A lean simulated player for the benchmarks that follow races from one to the next or
across a restart: ``loadtest.Player`` (one connection, one request at a time, msgpack)
that also keeps what arrives unasked: the last event number, the races that started, the
last snapshot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack

from bench.loadtest import Player


class Listener(Player):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.last_event = 0
        self.started: set[str] = set()
        self.snapshot: dict[str, Any] | None = None

    def unasked(self, message: dict[str, Any]) -> None:
        if message.get("type") != "event":
            return
        self.last_event = max(self.last_event, message["n"])
        if message["kind"] == "started":
            self.started.add(message["race"])
        elif message["kind"] == "snapshot":
            self.snapshot = message

    async def read_until(self, done: Callable[[], bool]) -> None:
        """Read what arrives until ``done()`` holds."""
        while not done():
            self.unasked(msgpack.unpackb(await self.connection.recv(), raw=False))

    async def wait_started(self, race: str) -> None:
        await self.read_until(lambda: race in self.started)
        self.started.discard(race)
