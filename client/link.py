"""One connection to a solrace server (``Link``): opened with ``hello``, requests sent and
their answers matched by id, events (numbered per player) and spectator feed items queued
as they arrive, resumed with the token and the last event seen. ``client.api.Client`` adds
the protocol's requests, built from the typed classes of ``protocol/messages.py``."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any, Self

from websockets.asyncio.client import ClientConnection, connect
from websockets.datastructures import HeadersLike
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol.errors import SolraceError
from protocol.messages import (
    Error,
    Event,
    Hello,
    Request,
    Result,
    ServerMessage,
    Watch,
    Welcome,
    decode_server,
    encode_request,
)
from protocol.wire import MSGPACK, PROTOCOL_VERSION, decode_from_server, encode


class ServerError(SolraceError):
    """The server refused a request: ``code`` is stable, ``message`` is for people, ``of``
    the request it answers."""

    def __init__(self, code: str, message: str, of: str | None = None) -> None:
        super().__init__(message, code)
        self.of = of

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Link:
    """One connection to a solrace server, opened with ``hello`` (a resume when it has a
    token): requests and their answers, events and feed items as they come."""

    def __init__(self, url: str, name: str, encoding: str = MSGPACK) -> None:
        self.url = url
        self.name = name
        self.encoding = encoding
        self.player = ""
        self.token = ""
        self.account: str | None = None  # the account's username once signed in
        self.headers: HeadersLike | None = None  # more HTTP headers for the handshake
        self.bot = False  # a program plays: said in every hello
        self.device: str | None = None  # this device's own id, said in every hello
        self.last_event = 0
        self.welcome: Welcome | None = None
        self.connection: ClientConnection | None = None
        self.pending: dict[int, asyncio.Future[ServerMessage]] = {}
        self.queue: asyncio.Queue[Event | Watch | None] = asyncio.Queue()
        self.seqs: dict[str, int] = {}
        self.ids = itertools.count(1)
        self.reader: asyncio.Task[None] | None = None
        self.received: list[bytes | str] = []  # every frame, when ``record`` is on
        self.record = False

    # ------------------------------------------------------------------ connection

    @classmethod
    async def connect(
        cls,
        url: str,
        name: str,
        *,
        encoding: str = MSGPACK,
        record: bool = False,
        headers: HeadersLike | None = None,
        bot: bool = False,
        device: str | None = None,
    ) -> Self:
        """Connect and say hello as a new player (``headers``: more HTTP headers; ``bot``:
        a program plays, and says so: it is shown as a bot everywhere; ``device``: the id
        this device keeps, ``client.device_id``)."""
        client = cls(url, name, encoding)
        client.record = record
        client.headers = headers
        client.bot = bot
        client.device = device
        await client._open(token=None)
        return client

    async def _open(self, token: str | None) -> None:
        self.connection = await connect(
            self.url,
            subprotocols=[self.encoding],  # type: ignore[list-item]
            compression=None,
            max_size=2**22,
            additional_headers=self.headers,
        )
        self.reader = asyncio.create_task(self._read(self.connection))
        hello = Hello(
            0,
            protocol=PROTOCOL_VERSION,
            name=self.name,
            token=token or None,
            last_event=self.last_event if token else None,
            bot=self.bot,
            device=self.device,
        )
        welcome = await self._exchange(encode_request(hello))
        assert isinstance(welcome, Welcome)
        self.welcome = welcome
        self.player, self.token, self.name = welcome.player, welcome.token, welcome.name
        self.account = welcome.account

    async def resume(self) -> Welcome:
        """Reconnect with the resume token; missed events (or a snapshot) follow."""
        await self.drop()
        await self._open(token=self.token)
        assert self.welcome is not None
        return self.welcome

    async def reconnect(self, within_s: float = 60.0) -> Welcome:
        """Resume after the connection was lost (a server restarting, a deploy): try
        again, a little slower each time, for up to ``within_s`` seconds."""
        deadline = asyncio.get_running_loop().time() + within_s
        pause = 0.05
        while True:
            try:
                return await self.resume()
            except (OSError, ConnectionError, InvalidHandshake, ServerError):
                if asyncio.get_running_loop().time() + pause > deadline:
                    raise
                await asyncio.sleep(pause)
                pause = min(pause * 2, 1.0)

    async def drop(self) -> None:
        """Close the connection without ending the session (as a network failure would)."""
        if self.connection is not None:
            with contextlib.suppress(OSError, ConnectionClosed):
                await self.connection.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)
        self.connection = None

    async def close(self) -> None:
        await self.drop()
        self.queue.put_nowait(None)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _read(self, connection: ClientConnection) -> None:
        try:
            async for frame in connection:
                if self.record:
                    self.received.append(frame)
                message = decode_server(decode_from_server(frame, self.encoding))
                if isinstance(message, Event):
                    self.last_event = max(self.last_event, message.n)
                    self.queue.put_nowait(message)
                elif isinstance(message, Watch):
                    self.queue.put_nowait(message)
                else:
                    future = (
                        self.pending.pop(message.id, None) if isinstance(message.id, int) else None
                    )
                    if future is not None and not future.done():
                        future.set_result(message)
        except ConnectionClosed:
            pass
        finally:
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the connection closed"))
            self.pending.clear()

    # ------------------------------------------------------------------ requests

    async def _exchange(self, message: dict[str, Any]) -> ServerMessage:
        """Send ``message`` under the next request id; its answer (an error raised)."""
        if self.connection is None:
            raise ConnectionError("not connected")
        request_id = next(self.ids)
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        message = {**message, "id": request_id}
        try:
            await self.connection.send(encode(message, self.encoding))
        except ConnectionClosed as closed:
            # the reader may have failed this future already, as the connection closed
            # while it was being sent: nobody will await it, so take its error here
            self.pending.pop(request_id, None)
            if future.done():
                future.exception()
            else:
                future.cancel()
            raise ConnectionError(f"the connection closed ({closed})") from None
        answer = await future
        if isinstance(answer, Error):
            raise ServerError(answer.code, answer.message, answer.of)
        return answer

    async def ask(self, request: Request) -> dict[str, Any]:
        """Send a typed request (its id is given here); the result's fields, or
        ServerError."""
        answer = await self._exchange(encode_request(request))
        assert isinstance(answer, Result)
        return answer.data

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send any request as given, unchecked (fields that are None are left out): for
        tools and tests that must send what the typed requests cannot; the result's
        fields, or ServerError."""
        message = {"type": kind, **{k: v for k, v in fields.items() if v is not None}}
        answer = await self._exchange(message)
        assert isinstance(answer, Result)
        return answer.data

    # ------------------------------------------------------------------ events

    async def events(self) -> AsyncIterator[Event | Watch]:
        """Events and spectator feed items, in arrival order, until ``close()``."""
        while True:
            item = await self.queue.get()
            if item is None:
                return
            yield item

    async def next_event(
        self,
        kind: str | None = None,
        timeout: float = 10.0,
        where: Callable[[dict[str, Any]], bool] | None = None,
    ) -> Event | Watch:
        """The next event of ``kind`` whose fields satisfy ``where`` (skipping others), or
        TimeoutError."""
        async with asyncio.timeout(timeout):
            while True:
                item = await self.queue.get()
                if item is None:
                    raise ConnectionError("the client is closed")
                if (kind is None or item.kind == kind) and (where is None or where(item.data)):
                    return item
