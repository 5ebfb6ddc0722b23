"""Players' sessions: who they are, their resume token, their numbered events, and the one
live connection that carries them.

Every event a player is sent is numbered from 1 and kept (the last ``buffer`` of them), so
a player who reconnects with the number of the last event they saw gets exactly what they
missed, or a full snapshot when that is too far back.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from protocol.messages import Event, ServerMessage, encode_server
from protocol.wire import encode

log = logging.getLogger("solrace.sessions")
_closing: set[asyncio.Future[None]] = set()  # keeps close tasks alive until they finish


def close_soon(connection: ServerConnection, code: int, reason: str) -> None:
    """Start closing ``connection`` without waiting for it."""
    task = asyncio.ensure_future(connection.close(code, reason))
    _closing.add(task)
    task.add_done_callback(_closing.discard)


class Session:
    def __init__(
        self, name: str, buffer: int, player: str | None = None, token: str | None = None
    ) -> None:
        self.player = player or "p" + secrets.token_hex(6)
        self.token = token or secrets.token_urlsafe(24)
        self.name = name
        self.connection: ServerConnection | None = None
        self.encoding = ""
        self.events: deque[Event] = deque(maxlen=buffer)
        self.last_event = 0
        self.racing: set[str] = set()  # race ids this player races in
        self.watching: set[str] = set()  # race ids this player spectates
        self.standings_sent: dict[str, int] = {}  # race id -> standings version sent
        self.last_act_ms: dict[str, int] = {}  # race id -> when this player last acted
        self.grace: asyncio.TimerHandle | None = None
        self.write_limit = 1 << 20

    @property
    def connected(self) -> bool:
        return self.connection is not None

    def send(self, message: ServerMessage) -> None:
        """Send now, without waiting; a connection too far behind is closed (the player
        resumes and catches up from the numbered events)."""
        connection = self.connection
        if connection is None:
            return
        transport = connection.transport
        if transport is not None and transport.get_write_buffer_size() > self.write_limit:
            log.warning("closing a connection that does not read", extra={"player": self.player})
            close_soon(connection, 1008, "not reading its messages")
            return
        self.send_to(connection, self.encoding, message)

    @staticmethod
    def send_to(connection: ServerConnection, encoding: str, message: ServerMessage) -> None:
        """Send ``message`` on ``connection`` at once (no waiting for the socket)."""
        if connection.protocol.state is State.OPEN and connection.transport is not None:
            connection.transport.write(frame_bytes(encode(encode_server(message), encoding)))

    def push(self, kind: str, data: dict[str, Any]) -> None:
        """Number, keep and send an event."""
        self.last_event += 1
        event = Event(self.last_event, kind, data)
        self.events.append(event)
        self.send(event)

    def missed_since(self, last_seen: int) -> list[Event] | None:
        """The events after ``last_seen``, or None if some of them are no longer kept."""
        if last_seen >= self.last_event:
            return []
        if not self.events or self.events[0].n > last_seen + 1:
            return None
        return [event for event in self.events if event.n > last_seen]


def frame_bytes(payload: bytes | str) -> bytes:
    """A complete server-to-client websocket frame for ``payload``: a text frame for a
    string, a binary frame for bytes. Server frames are not masked and compression is off,
    so the bytes are the same for any connection; writing them to the transport is what
    ``websockets.broadcast`` does, without building the frame again per connection."""
    if isinstance(payload, str):
        return Frame(Opcode.TEXT, payload.encode()).serialize(mask=False)
    return Frame(Opcode.BINARY, payload).serialize(mask=False)
