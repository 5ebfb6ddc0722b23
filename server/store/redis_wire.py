"""The Redis store's own connections, asyncio protocols on ``hiredis``: the writer's batch
connection (``BatchConnection``) and the connection that listens to channels
(``Subscriber``).

They pack commands and parse replies with hiredis and do not import redis-py: the store
reads the URL and hands them an ``Address`` (``redis_calls.wire_address``), and they raise
their own errors, ``WireTimeout`` (a ``TimeoutError``) and ``WireLost`` (a
``ConnectionError``), which the store takes, as it takes any socket error, for Redis being
unavailable. The batch connection is the ``BatchSender``'s (``redis_sender``), the
subscriber ``Listening``'s (``redis_listen``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import hiredis

from protocol.errors import SolraceError

Command = tuple[str | int, ...]
_Awaited = asyncio.Future[list[Any]]


@dataclass(frozen=True)
class Address:
    """Where Redis listens and who to be there: host and port, or a unix socket's ``path``
    (then host and port are not used); TLS or not; the user and password to AUTH with
    (none without a password) and the database to SELECT (none for 0)."""

    host: str = "localhost"
    port: int = 6379
    path: str | None = None
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    db: int = 0


class WireTimeout(SolraceError, TimeoutError):
    """The oldest batch waiting had no answer within the connection's deadline."""


class WireLost(SolraceError, ConnectionError):
    """The connection went (its waiting batches with it), or Redis refused it as it was
    opened (AUTH, SELECT)."""


class BatchConnection(asyncio.Protocol):
    """The writer's own connection to Redis: a batch's commands go out in one write (packed
    by hiredis), and the replies are parsed by hiredis as they arrive and handed to the
    batch waiting for them, in order: no reader task and no timer per reply. redis-py's
    pipelines and connections cost several times the round trip itself on the action
    hot path (measured in docs/bench.md); they still serve every other call, and this
    connection is opened at the ``Address`` the store reads from the URL with redis-py's
    own parser (host and port or a unix socket, TLS for ``rediss://``, the user, password
    and database), or, given ``locate``, at the address it gives each time the connection
    is opened (the primary the sentinels name now). An error reply comes back in its place
    as ``error(text)`` (the store makes redis-py's exceptions of them)."""

    def __init__(
        self,
        address: Address,
        deadline: float,
        error: Callable[[str], Exception] = hiredis.ReplyError,
        locate: Callable[[], Awaitable[Address]] | None = None,
    ) -> None:
        self.address = address  # the last opened (or to open, without ``locate``)
        self.locate = locate
        self.deadline = deadline
        self.error = error
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        # per batch sent: its replies expected, those come, its future, when it was sent
        self.waiting: deque[tuple[int, list[Any], _Awaited, float]] = deque()
        self.connecting: asyncio.Lock = asyncio.Lock()
        self.watchdog: asyncio.TimerHandle | None = None

    def _expect(self, count: int, waiter: _Awaited) -> None:
        loop = asyncio.get_running_loop()
        self.waiting.append((count, [], waiter, loop.time()))
        if self.watchdog is None:
            self.watchdog = loop.call_later(self.deadline / 4, self._watch)

    async def send(self, commands: list[Command]) -> list[Any]:
        """Every reply, in order; ``WireTimeout`` when the oldest batch waiting has
        waited ``deadline`` seconds (one watchdog timer checks a few times a deadline, not
        a timer per batch: that cost more than the rest of a small batch's trip)."""
        transport = self.transport or await self.connect()
        return await self._exchange(transport, commands)

    async def _exchange(self, transport: asyncio.Transport, commands: list[Command]) -> list[Any]:
        payload = b"".join(map(hiredis.pack_command, commands))  # type: ignore[arg-type]
        done: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._expect(len(commands), done)
        transport.write(payload)
        try:
            return await done
        except BaseException:
            self.close()  # a batch given up on: the replies are out of step
            raise

    def _watch(self) -> None:
        self.watchdog = None
        if not self.waiting:
            return
        loop = asyncio.get_running_loop()
        if loop.time() - self.waiting[0][3] >= self.deadline:
            self.close(WireTimeout(f"no answer within {self.deadline} s"))
            return
        self.watchdog = loop.call_later(self.deadline / 4, self._watch)

    async def connect(self) -> asyncio.Transport:
        async with self.connecting:
            if self.transport is not None:
                return self.transport
            loop = asyncio.get_running_loop()
            if self.locate is not None:
                self.address = await self.locate()
            address = self.address
            transport: asyncio.BaseTransport
            if address.path is not None:
                transport, _ = await loop.create_unix_connection(lambda: self, address.path)
            else:
                transport, _ = await loop.create_connection(
                    lambda: self, address.host, address.port, ssl=address.tls or None
                )
            assert isinstance(transport, asyncio.Transport)
            hello: list[Command] = []
            if address.password:
                user = address.username
                hello.append(
                    ("AUTH", user, address.password) if user else ("AUTH", address.password)
                )
            if address.db:
                hello.append(("SELECT", address.db))
            for reply in await self._exchange(transport, hello) if hello else []:
                if isinstance(reply, Exception):
                    self.close()
                    raise WireLost(f"Redis refused the connection: {reply}")
            return transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while self.waiting:
            reply = self.reader.gets()
            if reply is False:
                return
            self._answered(reply)

    def _answered(self, reply: Any) -> None:
        """``reply`` is the next one the oldest waiting batch expects."""
        count, replies, done, _ = self.waiting[0]
        replies.append(self.error(str(reply)) if isinstance(reply, hiredis.ReplyError) else reply)
        if len(replies) == count:
            self.waiting.popleft()
            if not done.done():
                done.set_result(replies)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.reader = hiredis.Reader()
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None
        waiting, self.waiting = self.waiting, deque()
        for _, _, done, _ in waiting:
            if not done.done():
                done.set_exception(
                    exc
                    if isinstance(exc, WireTimeout)
                    else WireLost(f"the connection to Redis was lost ({exc})")
                )

    def close(self, reason: Exception | None = None) -> None:
        if self.transport is not None:
            self.transport.close()
            self.connection_lost(reason)


class Subscriber(BatchConnection):
    """The connection that listens to channels: each message is parsed by hiredis as it
    arrives and handed to ``heard`` at once (redis-py's pub/sub reader cost about a tenth
    of the server's CPU at saturation, hearing the node's own log hints). Commands
    (AUTH, SUBSCRIBE, UNSUBSCRIBE) are sent as a batch's are and their replies awaited;
    ``lost`` is called whenever the connection goes, and ``open`` connects again and
    subscribes to every one of ``channels``. While messages keep coming they are read at
    most once every ``hear_every`` seconds (see ``_coalesce``). ``sharded``: a Redis Cluster
    node's shard channels (SSUBSCRIBE, one command per channel: each may be in another slot);
    one of them unsubscribed by Redis unasked (its slot moved to another node) closes the
    connection, so it is opened again where the channels are now."""

    def __init__(
        self,
        address: Address,
        heard: Callable[[str, str], None],
        lost: Callable[[], None],
        deadline: float,
        hear_every: float,
        error: Callable[[str], Exception] = hiredis.ReplyError,
        locate: Callable[[], Awaitable[Address]] | None = None,
        sharded: bool = False,
    ) -> None:
        super().__init__(address, deadline, error, locate)
        self.reader = _text_reader()
        self.sharded = sharded
        self.words = ("SSUBSCRIBE", "SUNSUBSCRIBE") if sharded else ("SUBSCRIBE", "UNSUBSCRIBE")
        self.kind = "smessage" if sharded else "message"
        self.heard = heard
        self.lost = lost
        self.channels: set[str] = set()  # with the store's prefix
        self.opening = asyncio.Lock()
        self.every = hear_every
        self.last_read = 0.0  # loop time of the last read taken at once
        self.resuming: asyncio.TimerHandle | None = None  # reading paused until then

    async def open(self) -> None:
        """Connected and subscribed to every channel (at once when it is already)."""
        async with self.opening:
            if self.transport is not None:
                return
            await self.connect()
            if self.channels:
                await self.send([(self.words[0], channel) for channel in sorted(self.channels)])

    async def add(self, channels: list[str]) -> None:
        """Subscribed to ``channels`` too (connected first if need be)."""
        self.channels.update(channels)
        await self.open()  # subscribed to every channel (once opened)
        await self.send([(self.words[0], channel) for channel in channels])

    async def remove(self, channels: list[str]) -> None:
        """No longer subscribed to ``channels``."""
        self.channels.difference_update(channels)
        if self.transport is not None and channels:
            await self.send([(self.words[1], channel) for channel in channels])

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        self._coalesce()
        while True:
            reply = self.reader.gets()
            if reply is False:
                return
            if type(reply) is list and len(reply) == 3 and reply[0] == self.kind:
                try:
                    self.heard(reply[1], reply[2])
                except Exception:
                    logging.getLogger("solrace.store").exception("a message's listener failed")
                continue
            if self.sharded and _moved_away(reply, self.channels):
                self.close(WireLost(f"the slot of {reply[1]} moved to another node"))
                return
            if self.waiting:  # else a confirmation nobody waits for any more
                self._answered(reply)

    def _coalesce(self) -> None:
        """Data read within ``every`` of the last read taken at once: stop reading until
        ``every`` after it, so what comes meanwhile is read in one go (a busy race's
        messages wait at most ``every``; a quiet one's are read as they come)."""
        if self.every <= 0 or self.transport is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now - self.last_read >= self.every:
            self.last_read = now
        elif self.resuming is None:
            self.transport.pause_reading()
            self.resuming = loop.call_at(self.last_read + self.every, self._resume)

    def _resume(self) -> None:
        self.resuming = None
        self.last_read = asyncio.get_running_loop().time()
        if self.transport is not None:
            self.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.resuming is not None:
            self.resuming.cancel()
            self.resuming = None
        lost = self.transport is not None
        super().connection_lost(exc)
        self.reader = _text_reader()
        if lost:
            self.lost()


def _moved_away(reply: Any, channels: set[str]) -> bool:
    """An unsubscription from a shard channel still subscribed to: Redis sends one unasked
    when the channel's slot moves to another node."""
    return (
        type(reply) is list
        and len(reply) == 3
        and reply[0] == "sunsubscribe"
        and reply[1] in channels
    )


def _text_reader() -> hiredis.Reader:
    return hiredis.Reader(encoding="utf-8", errors="replace")
