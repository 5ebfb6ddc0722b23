"""A websockets server connection that hands each whole message to a callback as it is read.

websockets' asyncio connection queues every message for a reader task: a future, a queue
and a task wake-up per message. This server answers most requests in the same step, so
``MessageConnection`` (given to ``serve`` as its ``create_connection``) passes each
complete data message to ``on_message`` straight from the sans-I/O protocol's events, in
the order received. Control frames, the handshake, keepalive and closing stay websockets'
own. Messages that arrive before a callback is set are kept and handed over by ``listen``.

Once the connection is open it also reads the frames itself (``data_received``): a whole
unfragmented text or binary frame, masked as a client's must be, is unmasked (websockets'
own C ``apply_mask``) and handed over at once; every other frame (control frames, fragments,
anything malformed or too large) is passed to websockets whole, so its parser always starts
at a frame's first byte and keeps its own rules and close codes for them. websockets' frame
parser is a stack of generators that costs about a sixth of the server's time per action;
a test checks this reading against websockets' own for frames of every kind, split at
every byte.

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
from websockets.protocol import Event, Protocol, State
from websockets.speedups import apply_mask

from server.edge.addresses import forwarded_for

Message = str | bytes
_FIN_TEXT, _FIN_BINARY = 0x81, 0x82  # a whole message in one frame, no extension bits
_MASKED = 0x80
_closing: set[asyncio.Future[None]] = set()  # keeps close tasks alive until they finish


def close_soon(connection: ServerConnection, code: int, reason: str) -> None:
    """Start closing ``connection`` without waiting for it."""
    task = asyncio.ensure_future(connection.close(code, reason))
    _closing.add(task)
    task.add_done_callback(_closing.discard)


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
    __slots__ = (
        "_early",
        "_fragments",
        "_own_framing",
        "_partial",
        "_text",
        "forwarded_for",
        "on_lost",
        "on_message",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_message: Callable[[Message], None] | None = None
        self._early: list[Message] = []  # whole messages before ``listen``
        self._fragments: list[bytes] = []  # the message being read, frame by frame
        self._text = False
        self._own_framing: bool | None = None  # decided when the connection opens
        self._partial = b""  # the start of a frame not wholly read yet
        self.forwarded_for: str | None = None  # the handshake's X-Forwarded-For, if any
        self.on_lost: Callable[[], None] | None = None  # once closed (the address count)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.recv_messages = _NoMessages.instance()

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        """websockets' opening handshake; then let its headers go (about 4 KiB a
        connection, for as long as it lasts), keeping X-Forwarded-For (see
        ``server/edge/addresses.py``). ``request`` and ``response`` stay, with no headers."""
        await super().handshake(*args, **kwargs)
        if self.request is not None:
            # several lines are one list (HAProxy adds a line of its own)
            self.forwarded_for = forwarded_for(self.request.headers.get_all("X-Forwarded-For"))
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
        lost, self.on_lost = self.on_lost, None
        if lost is not None:
            lost()
        self.protocol.__dict__.pop("select_subprotocol", None)
        # CPython 3.11's socket transport keeps a bound method of itself (its read
        # callback) after closing: clear it, or every closed transport is a frozen cycle.
        if hasattr(self.transport, "_read_ready_cb"):
            self.transport._read_ready_cb = None

    @property
    def reads_frames(self) -> bool:
        """This connection reads its common frames itself (decided once it is open)."""
        return bool(self._own_framing)

    def data_received(self, data: bytes) -> None:
        """Read whole frames from ``data`` (see the module's docstring); until the
        connection is open, and for good if websockets' parser was not then at a frame's
        first byte (a client that sent frames before the handshake's answer), websockets
        reads everything."""
        own = self._own_framing
        if own is None:
            if self.protocol.state is not State.OPEN:
                super().data_received(data)
                return
            own = self._own_framing = _at_frame_start(self.protocol)
        if not own:
            super().data_received(data)
            return
        buffer = self._partial + data if self._partial else data
        protocol = self.protocol
        limit = protocol.max_message_size
        start, end_of_data = 0, len(buffer)
        while end_of_data - start >= 2:
            first, second = buffer[start], buffer[start + 1]
            length = second & 0x7F
            extended = 2 if length == 126 else 8 if length == 127 else 0
            header = 2 + extended + (4 if second & _MASKED else 0)
            if end_of_data - start < header:
                break
            if extended:
                length = int.from_bytes(buffer[start + 2 : start + 2 + extended])
            if limit is not None and length > limit:  # websockets refuses it (1009)
                self._own_framing = False
                super().data_received(buffer[start:])
                self._partial = b""
                return
            body = start + header
            end = body + length
            if end > end_of_data:
                break
            if (
                first in (_FIN_BINARY, _FIN_TEXT)
                and second & _MASKED
                and protocol.current_size is None
                and protocol.state is State.OPEN
            ):
                mask = buffer[body - 4 : body]
                self._deliver(apply_mask(buffer[body:end], mask), first == _FIN_TEXT)
            else:
                super().data_received(buffer[start:end])
            start = end
        self._partial = buffer[start:] if start < end_of_data else b""

    def eof_received(self) -> None:
        if self._partial:  # websockets judges the frame cut short
            super().data_received(self._partial)
            self._partial = b""
        return super().eof_received()

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
        self._deliver(data, self._text)

    def _deliver(self, data: bytes, text: bool) -> None:
        """Hand one whole message to ``on_message`` (a text one must be UTF-8)."""
        message: Message = data
        if text:
            try:
                message = data.decode()
            except UnicodeDecodeError:
                close_soon(self, CloseCode.INVALID_DATA, "a text frame must be UTF-8")
                return
        if self.on_message is None:
            self._early.append(message)
        else:
            self.on_message(message)


def _at_frame_start(protocol: Protocol) -> bool:
    """websockets' parser holds no bytes and waits for a frame's first one (its frame loop
    waits in ``StreamReader.at_eof`` between frames), and its protocol keeps the state this
    reading consults (websockets 15 and later: ``current_size``, ``max_message_size``)."""
    if protocol.reader.buffer or not hasattr(protocol, "current_size"):
        return False
    if not hasattr(protocol, "max_message_size"):
        return False
    waiting: Any = protocol.parser
    while getattr(waiting, "gi_yieldfrom", None) is not None:
        waiting = waiting.gi_yieldfrom
    return getattr(waiting, "__qualname__", "") == "StreamReader.at_eof"
