"""The benchmarks' simulated players: ``Player`` (one connection, one request at a time,
msgpack), opened and greeted in batches, replaying random legal playouts; and ``Listener``,
a player that also keeps what arrives unasked (for the benchmarks that follow races from
one to the next or across a restart): the last event number, the races that started, the
last snapshot."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable
from typing import Any, TypeVar

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from protocol.engine import Rules
from protocol.errors import SolraceError
from protocol.games import rules_for
from protocol.notation import UNDO

CONNECT_BATCH = 200
HELLO_BATCH = 50  # hellos at once: each writes the new identity to the store
HELLO_TRIES = 8  # a hello refused store_unavailable (the store busy) is tried again


def playouts(game: str, count: int, length: int, seed: int) -> dict[int, list[str]]:
    """Random legal playouts (no undo) of at least ``length`` actions, by deal number."""
    rules = rules_for(game)
    rng = random.Random(seed)
    found: dict[int, list[str]] = {}
    deal = 0
    while len(found) < count:
        deal += 1
        actions = wander(rules, deal, length, rng)
        if len(actions) == length:
            found[deal] = list(actions)
    return found


def wander(rules: Rules, deal: int, longest: int, rng: random.Random) -> tuple[str, ...]:
    """A random walk of legal actions (no undo) from ``deal``'s start: ``longest`` of them,
    or fewer where none is left."""
    state, actions = rules.start(deal), list[str]()
    while len(actions) < longest:
        legal = [a for a in rules.legal_actions(state) if a is not UNDO]
        if not legal:
            break
        action = rng.choice(legal)
        state = rules.apply(state, action).state
        actions.append(str(action))
    return tuple(actions)


class Refused(SolraceError):
    """The server refused a request with ``code``."""

    def __init__(self, kind: str, code: str, message: str) -> None:
        super().__init__(f"{kind}: {code}: {message}", code)


class Player:
    """One connection, one request at a time."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.ids = 0
        self.race = ""
        self.actions: list[str] = []
        self.seq = 0

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        request_id = self.ids
        await self.connection.send(msgpack.packb({"type": kind, "id": request_id, **fields}))
        while True:
            message = msgpack.unpackb(await self.connection.recv(), raw=False)
            if message.get("id") == request_id and message["type"] != "event":
                if message["type"] == "error":
                    raise Refused(kind, message["code"], message["message"])
                return message  # type: ignore[no-any-return]
            self.unasked(message)

    async def hello(self, name: str) -> dict[str, Any]:
        """Say hello as ``name``; a store too busy to answer is given more time."""
        for attempt in range(HELLO_TRIES):
            try:
                return await self.call("hello", protocol=1, name=name)
            except Refused as refused:
                if refused.code != "store_unavailable" or attempt == HELLO_TRIES - 1:
                    raise
                await asyncio.sleep(0.1 * 2**attempt)
        raise AssertionError("unreachable")

    def unasked(self, message: dict[str, Any]) -> None:
        """An event or feed item that came while waiting for an answer: dropped here."""

    async def act(self) -> None:
        """The next action of the playout; past its end, undo (always legal then)."""
        action = self.actions[self.seq] if self.seq < len(self.actions) else "undo"
        self.seq += 1
        await self.call("act", race=self.race, seq=self.seq, action=action)

    async def drain_events(self) -> None:
        """Read what arrives unasked (a spectator's feed) so the server never waits."""
        async for _ in self.connection:
            pass


P = TypeVar("P", bound=Player)


async def greet_all(players: list[P], names: list[str]) -> list[dict[str, Any]]:
    """Each player says hello with its name, ``HELLO_BATCH`` at a time: the welcomes."""
    welcomes: list[dict[str, Any]] = []
    for first in range(0, len(players), HELLO_BATCH):
        batch = zip(players[first : first + HELLO_BATCH], names[first:], strict=False)
        welcomes += await asyncio.gather(*(p.hello(name) for p, name in batch))
    return welcomes


async def connect_all(url: str, count: int, subprotocol: str | None) -> list[Player]:
    return await connect_many(url, count, subprotocol, Player)


async def connect_many(
    url: str, count: int, subprotocol: str | None, make: Callable[[ClientConnection], P]
) -> list[P]:
    """``count`` connections, opened ``CONNECT_BATCH`` at a time, each made a ``make``."""
    players: list[P] = []
    for start in range(0, count, CONNECT_BATCH):
        batch = min(CONNECT_BATCH, count - start)
        connections = await asyncio.gather(
            *(
                connect(
                    url,
                    subprotocols=[subprotocol] if subprotocol else None,  # type: ignore[list-item]
                    compression=None,
                    max_size=2**22,
                    open_timeout=60,
                    ping_interval=None,  # thousands of keepalive pings at once would be noise
                    max_queue=None,  # a full queue stops pongs: the server would close 1011
                )
                for _ in range(batch)
            )
        )
        players.extend(make(c) for c in connections)
    return players


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


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
