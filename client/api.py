"""The Python client library: one object per connection to a solrace server.

    async with await Client.connect("ws://127.0.0.1:8765/ws", "Ann") as me:
        race = await me.create_race("sanibel", max_players=2)
        ...
        async for event in me.events():
            ...

Requests are awaited and return the result's fields (a dict) or raise ``ServerError``
with the server's code and sentence. Events (numbered per player) and spectator feed items
arrive on ``events()``. ``resume()`` reconnects with the resume token and the number of the
last event seen, so nothing is missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.datastructures import HeadersLike
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol.errors import SolraceError
from protocol.messages import (
    Error,
    Event,
    Result,
    ServerMessage,
    Watch,
    Welcome,
    decode_server,
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


class Client:
    def __init__(self, url: str, name: str, encoding: str = MSGPACK) -> None:
        self.url = url
        self.name = name
        self.encoding = encoding
        self.player = ""
        self.token = ""
        self.account: str | None = None  # the account's username once signed in
        self.headers: HeadersLike | None = None  # more HTTP headers for the handshake
        self.bot = False  # a program plays: said in every hello
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
    ) -> Client:
        """Connect and say hello as a new player (``headers``: more HTTP headers; ``bot``:
        a program plays, and says so: it is shown as a bot everywhere)."""
        client = cls(url, name, encoding)
        client.record = record
        client.headers = headers
        client.bot = bot
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
        fields: dict[str, Any] = {"protocol": PROTOCOL_VERSION, "name": self.name}
        if self.bot:
            fields["bot"] = True
        if token:
            fields.update(token=token, last_event=self.last_event)
        welcome = await self._request("hello", fields)
        assert isinstance(welcome, Welcome)
        self.welcome = welcome
        self.player, self.token, self.name = welcome.player, welcome.token, welcome.name
        self.account = welcome.account

    @classmethod
    async def signed_in(
        cls, url: str, username: str, password: str, *, encoding: str = MSGPACK
    ) -> Client:
        """Connect and sign in to the account ``username``."""
        client = await cls.connect(url, username, encoding=encoding)
        await client.sign_in(username, password)
        return client

    async def register(self, username: str, password: str) -> dict[str, Any]:
        """Make this player the account ``username``; its token replaces ours."""
        return self._adopt(await self.request("register", username=username, password=password))

    async def sign_in(self, username: str, password: str) -> dict[str, Any]:
        """Continue as the account ``username`` (this guest's session ends)."""
        return self._adopt(await self.request("sign_in", username=username, password=password))

    async def sign_out(self, everywhere: bool = False) -> dict[str, Any]:
        """Forget our token (or all the account's) and end the session; the server
        closes the connection."""
        return await self.request("sign_out", everywhere=everywhere)

    def _adopt(self, signed_in: dict[str, Any]) -> dict[str, Any]:
        self.player, self.name, self.token = (
            signed_in["player"],
            signed_in["name"],
            signed_in["token"],
        )
        self.account = signed_in["account"]
        self.last_event = signed_in["last_event"]  # the session's numbering from here
        return signed_in

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

    async def __aenter__(self) -> Client:
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

    async def _request(self, kind: str, fields: dict[str, Any]) -> ServerMessage:
        if self.connection is None:
            raise ConnectionError("not connected")
        request_id = next(self.ids)
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        message = {
            "type": kind,
            "id": request_id,
            **{k: v for k, v in fields.items() if v is not None},
        }
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

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send any request; the result's fields, or ServerError."""
        answer = await self._request(kind, fields)
        assert isinstance(answer, Result)
        return answer.data

    async def create_race(
        self,
        game: str,
        *,
        options: dict[str, Any] | None = None,
        deal: int | None = None,
        max_players: int = 2,
        public: bool = True,
        countdown_ms: int | None = None,
        spectator_delay_ms: int = 0,
    ) -> dict[str, Any]:
        data = await self.request(
            "create_race",
            game=game,
            options=options,
            deal=None if deal is None else str(deal),
            max_players=max_players,
            public=public,
            countdown_ms=countdown_ms,
            spectator_delay_ms=spectator_delay_ms,
        )
        race: dict[str, Any] = data["race"]
        return race

    async def list_races(self) -> list[dict[str, Any]]:
        races: list[dict[str, Any]] = (await self.request("list_races"))["races"]
        return races

    async def my_races(self) -> list[dict[str, Any]]:
        """The races I am in that are not over (racer views)."""
        races: list[dict[str, Any]] = (await self.request("my_races"))["races"]
        return races

    async def join_race(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.request("join_race", race=race))["race"]
        return info

    async def start_race(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.request("start_race", race=race))["race"]
        return info

    async def leave_race(self, race: str) -> None:
        await self.request("leave_race", race=race)

    async def act(
        self, race: str, action: str, *, seq: int | None = None, legal: bool = False
    ) -> dict[str, Any]:
        """Play ``action``; ``seq`` defaults to the next number for this race (give an
        earlier one to resend)."""
        if seq is None:
            seq = self.seqs.get(race, 0) + 1
        self.seqs[race] = max(self.seqs.get(race, 0), seq)
        return await self.request("act", race=race, seq=seq, action=action, legal=legal or None)

    async def resign(self, race: str) -> dict[str, Any]:
        return await self.request("resign", race=race)

    async def rematch(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.request("rematch", race=race))["race"]
        return info

    async def snapshot(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.request("snapshot", race=race))["race"]
        return info

    async def profile(
        self, player: str | None = None, *, username: str | None = None
    ) -> dict[str, Any]:
        return await self.request("profile", player=player, username=username)

    async def quick_race(self, game: str, bots: bool = False) -> dict[str, Any]:
        """Wait to be paired (a ``paired`` event names the race); with ``bots``, a bot may
        be the opponent."""
        fields: dict[str, Any] = {"bots": True} if bots else {}
        return await self.request("quick_race", game=game, **fields)

    async def quick_cancel(self) -> dict[str, Any]:
        return await self.request("quick_cancel")

    async def race_log(self, race: str) -> dict[str, Any]:
        """A finished race's public log (``solrace verify`` checks it)."""
        log: dict[str, Any] = (await self.request("race_log", race=race))["log"]
        return log

    async def daily_start(self, game: str, *, ghost: bool = False) -> dict[str, Any]:
        return await self.request("daily_start", game=game, ghost=ghost)

    async def daily_board(
        self, game: str, *, day: str | None = None, top: int = 10, around: int = 3
    ) -> dict[str, Any]:
        return await self.request("daily_board", game=game, day=day, top=top, around=around)

    async def best_board(self, game: str, *, top: int = 10, around: int = 3) -> dict[str, Any]:
        return await self.request("best_board", game=game, top=top, around=around)

    async def list_live(self) -> list[dict[str, Any]]:
        races: list[dict[str, Any]] = (await self.request("list_live"))["races"]
        return races

    async def spectate(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.request("spectate", race=race))["race"]
        return info

    async def unspectate(self, race: str) -> None:
        await self.request("unspectate", race=race)

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
