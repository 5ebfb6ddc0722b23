"""A websockets server connection that hands each whole message to a callback as it is read.

websockets' asyncio connection queues every message for a reader task: a future, a queue
and a task wake-up per message. This server answers most requests in the same step, so
``MessageConnection`` (given to ``serve`` as its ``create_connection``) passes each
complete data message to ``on_message`` straight from the sans-I/O protocol's events, in
the order received. Control frames, the handshake, keepalive and closing stay websockets'
own. Messages that arrive before a callback is set are kept and handed over by ``listen``.

An idle connection is kept small (``solrace bench idle``): once the handshake is over its
request's and response's headers are let go (``forwarded_for`` keeps the one header read
later), and websockets' queue of received messages, which this connection never uses,
is one shared empty instance.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar

from websockets.asyncio.messages import Assembler
from websockets.asyncio.server import ServerConnection
from websockets.frames import DATA_OPCODES, CloseCode, Frame, Opcode
from websockets.protocol import Event

from server.sessions import close_soon

Message = str | bytes


class _NoMessages(Assembler):
    """websockets' queue of received messages (its ``Assembler``: a queue, a deque and
    callbacks, about 2.5 KiB), for connections that never queue one: each message goes to
    ``on_message``. One instance, empty and closed, stands in for all of them, so
    ``recv()`` is not for these connections (it never was: it would wait forever)."""

    shared: ClassVar[_NoMessages | None] = None

    def __init__(self) -> None:
        super().__init__()  # in a running loop (its queue asks for one; closed, never uses it)
        self.close()

    @classmethod
    def instance(cls) -> _NoMessages:
        if cls.shared is None:
            cls.shared = cls()
        return cls.shared


class MessageConnection(ServerConnection):
    # Slots, not the instance's dict: websockets' connection has as many attributes as
    # CPython's compact (shared-key) instance dicts hold, and one more would cost each
    # connection a full dict (about 1.5 KiB).
    __slots__ = ("_early", "_fragments", "_text", "forwarded_for", "on_message")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_message: Callable[[Message], None] | None = None
        self._early: list[Message] = []  # whole messages before ``listen``
        self._fragments: list[bytes] = []  # the message being read, frame by frame
        self._text = False
        self.forwarded_for: str | None = None  # the handshake's X-Forwarded-For, if any

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.recv_messages = _NoMessages.instance()

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        """websockets' opening handshake; then let its headers go (about 4 KiB a
        connection, for as long as it lasts), keeping X-Forwarded-For (see
        ``server/addresses.py``). ``request`` and ``response`` stay, with no headers."""
        await super().handshake(*args, **kwargs)
        if self.request is not None:
            self.forwarded_for = self.request.headers.get("X-Forwarded-For")
            self.request.headers.clear()
        if self.response is not None:
            self.response.headers.clear()
        # only the handshake chooses a subprotocol; this closure refers to this connection
        self.protocol.__dict__.pop("select_subprotocol", None)

    def listen(self, on_message: Callable[[Message], None]) -> None:
        """From now on, give every whole message to ``on_message``, starting with any that
        came before this call."""
        early, self._early = self._early, []
        self.on_message = on_message
        for message in early:
            on_message(message)

    def connection_lost(self, exc: Exception | None) -> None:
        """Also break the reference cycles this connection is part of, so it is freed as
        soon as it is dropped: the server freezes long-lived objects for the garbage
        collector (see ``RaceServer._ticker``), and a frozen cycle is never collected.
        Our callback refers to a client that refers to this connection; websockets' own
        closure for ``select_subprotocol`` refers to this connection from its protocol.
        A test checks that closed connections leave no garbage behind."""
        super().connection_lost(exc)
        self.on_message = None
        self.protocol.__dict__.pop("select_subprotocol", None)
        # CPython 3.11's socket transport keeps a bound method of itself (its read
        # callback) after closing: clear it, or every closed transport is a frozen cycle.
        if hasattr(self.transport, "_read_ready_cb"):
            self.transport._read_ready_cb = None

    def process_event(self, event: Event) -> None:
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake
            return
        if event.opcode not in DATA_OPCODES:
            super().process_event(event)  # control frames: pongs acknowledge pings
            return
        fragments = self._fragments
        if event.opcode is not Opcode.CONT:
            fragments.clear()
            self._text = event.opcode is Opcode.TEXT
        fragments.append(bytes(event.data))  # the same object when it is bytes
        if not event.fin:
            return
        data = fragments[0] if len(fragments) == 1 else b"".join(fragments)
        fragments.clear()
        message: Message = data
        if self._text:
            try:
                message = data.decode()
            except UnicodeDecodeError:
                close_soon(self, CloseCode.INVALID_DATA, "a text frame must be UTF-8")
                return
        if self.on_message is None:
            self._early.append(message)
        else:
            self.on_message(message)
